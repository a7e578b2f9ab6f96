"""The front ends' shared guard: a bug becomes one line on stderr and a traceback in the log."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent_cli.cli.common import guarded
from agent_cli.core.files.logs import setup_logging
from agent_cli.core.files.paths import Paths


@pytest.mark.usefixtures("fresh_logging")
def test_guarded_turns_a_bug_into_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import typer

    stderr = io.StringIO()
    monkeypatch.setattr("sys.stderr", stderr)
    setup_logging(Paths(tmp_path), ())

    @guarded
    def command() -> None:
        raise RuntimeError("boom")

    with pytest.raises(typer.Exit) as exit_info:
        command()
    assert exit_info.value.exit_code == 1
    assert stderr.getvalue() == ("agent: internal error: RuntimeError: boom (see logs/agent.log)\n")
    assert "Traceback" in (tmp_path / "logs" / "agent.log").read_text()
