"""A cloned repository that ships the agent's state places as links: the agent never writes
through them (an appended log line in `~/.bashrc` runs at the user's next shell)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.helpers import run_agent
from tests.fake_model import FakeAnthropic


def _plant(ws: Path, outside: Path, case: str) -> Path:
    """The link `case` names; returns the outside file that must stay as it was."""
    bashrc = outside / "bashrc"
    bashrc.write_text("# the user's own\n")
    if case == "log file":
        (ws / "logs").mkdir()
        (ws / "logs" / "agent.log").symlink_to(bashrc)
    elif case == "calls file":
        (ws / "logs").mkdir()
        (ws / "logs" / "llm-calls.jsonl").symlink_to(bashrc)
    elif case == "logs folder":
        (ws / "logs").symlink_to(outside)
    elif case == "transcripts folder":
        (ws / ".transcripts").symlink_to(outside)
    else:
        (ws / ".transcripts").mkdir()
        (ws / ".transcripts" / "archive").symlink_to(outside)
    return bashrc


@pytest.mark.parametrize(
    "case", ["log file", "calls file", "logs folder", "transcripts folder", "archive folder"]
)
def test_a_shipped_link_in_the_state_is_refused_in_one_line(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, case: str
) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    bashrc = _plant(ws, outside, case)
    fake_model.script.text("hello")
    proc = run_agent(fake_env, ws, "run", "-p", "hi")
    assert proc.returncode == 1, proc.stderr  # as any state it cannot write
    assert "is a symbolic link" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert bashrc.read_text() == "# the user's own\n"
    assert sorted(p.name for p in outside.iterdir()) == ["bashrc"]
    assert fake_model.bodies() == []
