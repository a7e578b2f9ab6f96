"""`agent chat` with stdout not a terminal (issue 14): the reply's markdown reaches the pipe as
readable plain text, as under NO_COLOR on screen; `agent run` keeps the model's text as sent.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

from pathlib import Path

from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli

REPLY = (
    "## Where it happens\n\nThe **client** retries *three* times.\n\n"
    "| name | value |\n|---|---|\n| retries | 3 |\n| backoff_seconds | 0.5 |\n\nDone."
)


def test_piped_chat_prints_markdown_as_plain_text(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text(REPLY, chunks=12)
    env = {k: v for k, v in fake_env.items() if k != "NO_COLOR"}  # a pipe is enough
    proc = run_cli(env, tmp_path, "chat", stdin="explain retries\n")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for source in ("**", "|---", "##"):
        assert source not in out
    assert "The client retries three times." in out
    assert "\x1b[" not in out
    rows = [
        line
        for line in out.splitlines()
        if ("retries" in line and "3" in line) or "backoff_seconds" in line
    ]
    assert len(rows) == 2, out
    # the table's columns line up: each value starts in the same column
    assert rows[0].index("3") == rows[1].index("0.5"), rows
    assert out.index("Where it happens") < out.index("The client") < out.index("Done.")


def test_run_prints_the_model_text_verbatim(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text(REPLY)
    proc = run_cli(fake_env, tmp_path, "run", "-p", "explain retries")
    assert proc.returncode == 0, proc.stderr
    assert REPLY in proc.stdout
