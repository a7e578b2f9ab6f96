"""bash inside the sandbox (real bubblewrap): writes confined, no pid of the host leaks, children
die with the command, and a denial says so; permissions run a sandboxed write unasked."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from agent_cli.runtime.assembly import base_tools
from agent_cli.tools.registry import ToolRegistry
from tests.sandbox_support import shell_wrapper
from tests.unit.tool_helpers import ScriptedApprover, call, gated_registry, make_ctx

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


def _cwd_holders(folder: Path) -> list[int]:
    """Processes of the host whose working directory is `folder`."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cwd").readlink() == folder:
                    out.append(int(entry.name))
            except OSError:
                continue
    return out


def test_background_children_die_with_the_sandboxed_command(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    started = time.monotonic()
    command = "sleep 30 & echo started; echo pid=$$"
    result = call(
        ToolRegistry(base_tools(shell_wrapper=shell_wrapper)),
        ctx,
        "bash",
        command=command,
        timeout_s=20,
    )
    assert time.monotonic() - started < 15  # the child did not hold the command open
    assert result.content.splitlines()[:2] == ["started", "pid=2"]  # the namespace's pid
    deadline = time.monotonic() + 5
    while _cwd_holders(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _cwd_holders(tmp_path) == []


def test_exit_codes_come_through_and_a_denial_is_named(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    registry = ToolRegistry(base_tools(shell_wrapper=shell_wrapper))
    failed = call(registry, ctx, "bash", command="echo oops >&2; exit 3")
    assert failed.content == "oops\n\nexit code: 3"
    denied = call(registry, ctx, "bash", command="echo x > /etc/agent-test")
    assert denied.is_error
    assert "Read-only file system" in denied.content
    assert "[sandbox: a write outside the workspace" in denied.content
    assert not Path("/etc/agent-test").exists()
    tmp = call(registry, ctx, "bash", command='echo t > "$TMPDIR/t" && cat "$TMPDIR/t"')
    assert tmp.content.startswith("t\n")


def test_a_sandboxed_write_is_not_asked_an_unsandboxed_one_is(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    approver = ScriptedApprover("deny")
    registry = gated_registry(ctx, "default", approver)
    assert not call(registry, ctx, "bash", command="touch made.txt").is_error
    assert (tmp_path / "made.txt").exists()
    assert approver.asked == []
    outside = call(registry, ctx, "bash", command="touch out.txt", unsandboxed=True)
    assert outside.is_error
    assert [r.summary for r in approver.asked] == ["bash touch out.txt (outside the sandbox)"]
    assert not (tmp_path / "out.txt").exists()
    # read-only as it looks, outside the sandbox it could read the credentials: asked too
    call(registry, ctx, "bash", command="cat ~/.ssh/id_rsa", unsandboxed=True)
    assert len(approver.asked) == 2


def test_a_protected_file_the_command_creates_is_moved_aside_and_said(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    registry = ToolRegistry(base_tools(shell_wrapper=shell_wrapper))
    command = "mkdir -p .claude && echo '{\"hooks\": {}}' > .claude/settings.json"
    result = call(registry, ctx, "bash", command=command)
    assert not (tmp_path / ".claude" / "settings.json").exists()
    assert (
        tmp_path / ".claude" / "settings.json.sandbox-rejected"
    ).read_text() == '{"hooks": {}}\n'
    assert "[sandbox: .claude/settings.json is protected; the command created it" in result.content
    (tmp_path / ".claude" / "settings.local.json").write_text("{}")  # the user's own, before
    call(registry, ctx, "bash", command="echo x >> .claude/settings.local.json")
    assert (tmp_path / ".claude" / "settings.local.json").read_text() == "{}"  # read-only


def test_a_claude_folder_the_command_links_elsewhere_is_moved_aside_not_its_target(
    tmp_path: Path,
) -> None:
    ws, other = tmp_path / "ws", tmp_path / "other"
    ws.mkdir()
    other.mkdir()
    (other / "settings.json").write_text("theirs")
    ctx = make_ctx(ws)
    result = call(
        ToolRegistry(base_tools(shell_wrapper=shell_wrapper)),
        ctx,
        "bash",
        command=f"ln -s {other} .claude",
    )
    assert (other / "settings.json").read_text() == "theirs"
    assert not (ws / ".claude").exists()
    assert (ws / ".claude.sandbox-rejected").is_symlink()
    assert "[sandbox: .claude is protected" in result.content
