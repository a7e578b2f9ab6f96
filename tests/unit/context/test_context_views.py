"""Archives and saved results are views of the transcript (core/files/line_views.py), not second
copies: through `agent run` (the real SDK, the fake model server), the model opens an archive and
a saved result with read_file, mid-session, and gets what copies would have held; the session's
folder holds the results once."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agent_cli.core.files.line_views import NOTICE, is_view, read_view
from agent_cli.core.settings.schema import DEFAULT_MODEL
from tests.e2e.context_session import main_bodies, strip_cache
from tests.fake_model import FakeAnthropic, Script
from tests.fake_model.routing import system_contains
from tests.in_process import run_cli

ROUNDS = 60
SETTINGS: dict[str, Any] = {
    "context_windows": {DEFAULT_MODEL: 16_000},  # micro-compaction within 60 short rounds
    "memory": {"episode_rounds": 1_000_000},
}
ARCHIVE = re.compile(r"earlier messages were moved to (\S+\.jsonl)")
SAVED = re.compile(r"\[Earlier tool result saved at (\S+\.txt)\]")


def make_workspace(root: Path) -> None:
    (root / ".agent").mkdir(parents=True)
    (root / ".agent" / "settings.json").write_text(json.dumps(SETTINGS))
    for i in range(ROUNDS):  # results short enough that read_file shows archive lines whole
        lines = [f"file {i:02d} line {n:02d}: the quick brown fox" for n in range(26)]
        (root / f"f{i:02d}.txt").write_text("\n".join(lines) + "\n")


def found_in(body: dict[str, Any], pattern: re.Pattern[str]) -> str:
    text = json.dumps(body["messages"])
    matches = pattern.findall(text.replace("\\n", "\n"))
    assert matches, f"no {pattern.pattern} in the request"
    return str(matches[-1])


def script(server: FakeAnthropic, rounds: int, first: int = 0) -> None:
    server.route(system_contains("working summary of a coding-agent conversation")).respond(
        lambda body: "Read some files.", times=20
    )
    main = server.script
    for i in range(first, first + rounds):
        main.tool_use("read_file", path=f"f{i % ROUNDS:02d}.txt")
    main.respond(  # a few lines: the whole archive would be over the result's own limit
        lambda body: Script().tool_use("read_file", path=found_in(body, ARCHIVE), limit=6)
    )
    main.respond(lambda body: Script().tool_use("read_file", path=found_in(body, SAVED)))
    main.text("done")


def unnumbered(result: str) -> list[str]:
    lines = [line.split("\t", 1)[1] for line in result.split("\n") if "\t" in line]
    assert not any("more characters]" in line for line in lines)  # nothing cut: compared whole
    return lines


def tool_results(body: dict[str, Any]) -> dict[str, str]:
    out = {}
    for message in body["messages"]:
        if message["role"] == "user" and isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_result" and isinstance(block["content"], str):
                    out[block["tool_use_id"]] = block["content"]
    return out


def test_the_model_reads_an_archive_and_a_saved_result_as_copies_would_have_held_them(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    make_workspace(tmp_path)
    script(fake_model, ROUNDS)
    proc = run_cli(fake_env, tmp_path, "run", "-p", "read them", "--permission-mode", "bypass")
    assert proc.returncode == 0, proc.stderr
    bodies = main_bodies(fake_model)
    sent = [strip_cache(m) for body in bodies[:-2] for m in body["messages"]]
    sent_results: dict[str, str] = {}  # each result as first sent (later: its placeholder)
    for body in bodies[:-2]:
        for key, text in tool_results(body).items():
            sent_results.setdefault(key, text)

    archive_read = list(tool_results(bodies[-2]).values())[-1]
    assert not archive_read.startswith(NOTICE)
    archived = [json.loads(line)["message"] for line in unnumbered(archive_read)]
    assert len(archived) == 6
    for message in archived:  # each as it was sent (its micro placeholder, if it had one)
        assert message in sent
    moved = int(re.findall(r"snipped: (\d+) earlier", json.dumps(bodies[-3]))[-1])
    whole = read_view(Path(found_in(bodies[-3], ARCHIVE)), tmp_path / ".transcripts") or ""
    assert len(whole.splitlines()) == moved

    saved_path = found_in(bodies[-2], SAVED)
    saved_read = list(tool_results(bodies[-1]).values())[-1]
    tool_use_id = Path(saved_path).stem
    assert "\n".join(unnumbered(saved_read)) == sent_results[tool_use_id]

    folder = tmp_path / ".transcripts"
    assert len(list(folder.glob("*.jsonl"))) == 1  # one session: the views point into it
    copies = [*folder.glob("archive/*"), *folder.glob("tool-results/*/*")]
    assert copies
    assert all(is_view(p) for p in copies)
    stood_for = sum(len((read_view(p, folder) or "").encode()) for p in copies)
    assert sum(p.stat().st_size for p in copies) < stood_for / 3


def test_a_resumed_session_archives_as_views_too(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    make_workspace(tmp_path)
    script(fake_model, 30)
    first_run = run_cli(fake_env, tmp_path, "run", "-p", "read", "--permission-mode", "bypass")
    assert first_run.returncode == 0, first_run.stderr
    archive = tmp_path / ".transcripts" / "archive"
    before = set(archive.iterdir())
    script(fake_model, 30, first=30)
    proc = run_cli(
        fake_env, tmp_path, "run", "--continue", "-p", "more", "--permission-mode", "bypass"
    )
    assert proc.returncode == 0, proc.stderr
    new = set(archive.iterdir()) - before
    assert new
    assert all(is_view(p) for p in new)
    sent = [strip_cache(m) for body in main_bodies(fake_model) for m in body["messages"]]
    for path in new:
        lines = (read_view(path, tmp_path / ".transcripts") or "").splitlines()
        assert lines
        assert all(json.loads(line)["message"] in sent for line in lines)
