"""`agent run` end to end as a process: the real CLI, the real SDK, the fake model server. What
it answers is what the process prints and exits with (cli/entry.py ends it without teardown),
a second process continues the first one's session, and a prompt comes through a real pipe;
the command's logic is proven in process by tests/unit/cli/test_run_command.py."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.helpers import last_user_blocks, run_agent
from tests.fake_model import FakeAnthropic


def test_plain_text_answer(fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path):
    fake_model.script.text("Hello from the model.")
    proc = run_agent(fake_env, tmp_path, "run", "-p", "say hello")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hello from the model.\n"
    (body,) = fake_model.bodies()
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "say hello", "cache_control": {"type": "ephemeral"}}
            ],
        }
    ]
    assert "Traceback" not in proc.stderr


def test_continue_sends_the_previous_conversation(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("first answer").text("second answer")
    assert run_agent(fake_env, tmp_path, "run", "-p", "first question").returncode == 0
    proc = run_agent(fake_env, tmp_path, "run", "--continue", "-p", "second question")
    assert proc.returncode == 0, proc.stderr
    texts = [
        b["text"]
        for m in fake_model.bodies()[1]["messages"]
        for b in m["content"]
        if b["type"] == "text"
    ]
    assert texts == ["first question", "first answer", "second question"]
    assert len(list((tmp_path / ".transcripts").glob("*.jsonl"))) == 1


def test_prompt_from_stdin(fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path):
    fake_model.script.text("got it")
    proc = run_agent(fake_env, tmp_path, "run", "-p", "-", stdin="piped prompt\n")
    assert proc.returncode == 0, proc.stderr
    assert last_user_blocks(fake_model.bodies()[0])[0]["text"] == "piped prompt\n"
