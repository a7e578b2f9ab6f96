"""bash: exit codes, and background children neither hold the command open nor outlive it."""

from __future__ import annotations

from pathlib import Path

from agent_cli.runtime.assembly import base_tools
from agent_cli.tools.registry import ToolRegistry
from tests.sandbox_support import shell_wrapper
from tests.unit.tool_helpers import call, make_ctx, running, unconfined


def test_background_child_is_killed_and_does_not_hold_the_command(tmp_path: Path):
    ctx = make_ctx(tmp_path, unconfined())  # the pid it prints is the host's
    command = "sleep 30 & echo $! > bg.pid; echo started"
    # were the pipe waited for, this would run into its timeout instead of finishing
    result = call(
        ToolRegistry(base_tools(shell_wrapper=shell_wrapper)),
        ctx,
        "bash",
        command=command,
        timeout_s=20,
    )
    assert result.content == "started\n\nexit code: 0"
    pid = int((tmp_path / "bg.pid").read_text())
    assert not running(pid)


def test_exit_code_and_signal_are_reported(tmp_path: Path):
    ctx = make_ctx(tmp_path, unconfined())  # sandboxed, bwrap reports a signal as 128+n
    registry = ToolRegistry(base_tools(shell_wrapper=shell_wrapper))
    failed = call(registry, ctx, "bash", command="echo oops >&2; exit 3")
    assert failed.is_error
    assert failed.content == "oops\n\nexit code: 3"
    killed = call(registry, ctx, "bash", command="kill -9 $$")
    assert killed.is_error
    assert killed.content == "killed by signal 9"
    quiet = call(registry, ctx, "bash", command="true")
    assert not quiet.is_error
    assert quiet.content == "exit code: 0"
