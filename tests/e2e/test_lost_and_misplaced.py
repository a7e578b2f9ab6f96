"""A transcript whose first line is lost (`sed -i 1d`) still resumes, its header rebuilt from the
records after it; a bad setting is blamed on the file that holds it (the user's or the
workspace's), never on the other one."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e.helpers import run_agent
from tests.fake_model import FakeAnthropic


def texts(body: dict) -> list[str]:
    found = []
    for message in body["messages"]:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        found += [b["text"] for b in blocks if b.get("type") == "text"]
    return found


def test_a_transcript_without_its_first_line_resumes_with_continue(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("bash", command="echo seen-before").text("first answer")
    first = run_agent(fake_env, tmp_path, "run", "-p", "first question", "--output-format", "json")
    assert first.returncode == 0, first.stderr
    session = json.loads(first.stdout)["session_id"]
    transcript = tmp_path / ".transcripts" / f"{session}.jsonl"
    subprocess.run(["sed", "-i", "1d", str(transcript)], check=True)
    assert '"type":"session"' not in transcript.read_text().replace(" ", "")

    fake_model.script.text("second answer")
    again = run_agent(
        fake_env, tmp_path, "run", "--continue", "-p", "again", "--output-format", "json"
    )
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["session_id"] == session  # the same session goes on
    assert "first line (the session record) is missing; rebuilt" in again.stderr
    assert "Traceback" not in again.stderr
    assert texts(fake_model.bodies()[-1]) == ["first question", "first answer", "again"]
    assert not fake_model.violations
    assert "second answer" in transcript.read_text()


@pytest.mark.parametrize("where", ["user", "workspace"])
def test_a_bad_setting_names_the_file_it_is_in(
    fake_env: dict[str, str], tmp_path: Path, where: str
):
    user = Path(fake_env["HOME"]) / ".config" / "agent" / "settings.json"
    local = tmp_path / "ws" / ".agent" / "settings.json"
    for path in (user, local):
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({"max_turns": 5}))
    bad, good = (user, local) if where == "user" else (local, user)
    bad.write_text(json.dumps({"max_turns": 5, "bogus_key": 1}))
    proc = run_agent(fake_env, tmp_path / "ws", "run", "-p", "hi")
    assert proc.returncode == 2, proc.stderr
    assert f"agent: {bad}: bad setting 'bogus_key'" in proc.stderr
    assert str(good) not in proc.stderr
