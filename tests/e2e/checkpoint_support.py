"""A workspace for checkpoint tests and the turn the acceptance describes."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from tests.fake_model import FakeAnthropic

if TYPE_CHECKING:
    from agent_cli.ext.checkpoints.service import CheckpointService
    from agent_cli.runtime.runtime import Runtime

B_PY = b"def f():\r\n    return 1\r\n"  # CRLF: no line-ending conversion either way
D_TXT = bytes(range(256)) * 3 + b"\x00\r\n\x1a"  # binary
GIT_ID = ("-c", "user.name=t", "-c", "user.email=t@t")


def rewinds(runtime: Runtime) -> CheckpointService:
    """The checkpoints extension's service, as a front end reaches it."""
    from agent_cli.ext.checkpoints.service import CheckpointService

    service = runtime.extension("checkpoints")
    assert isinstance(service, CheckpointService)
    return service


def git(workspace: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *GIT_ID, *args], cwd=workspace, capture_output=True, check=True, text=True
    ).stdout


def make_workspace(root: Path, *, repo: bool) -> Path:
    workspace = root / "ws"
    workspace.mkdir()
    (workspace / "b.py").write_bytes(B_PY)
    (workspace / "d.txt").write_bytes(D_TXT)
    (workspace / "tool.sh").write_bytes(b"#!/bin/sh\necho hi\n")
    (workspace / "tool.sh").chmod(0o755)
    if repo:
        git(workspace, "init", "-q")
        git(workspace, "add", "-A")
        git(workspace, "commit", "-qm", "start")
        (workspace / "b.py").write_bytes(B_PY)  # same bytes, new mtime: a racy index
    return workspace


def user_git_state(workspace: Path) -> tuple[str, str, str]:
    """What the user's repository is: status, HEAD and the bytes of its index."""
    index = hashlib.sha256((workspace / ".git" / "index").read_bytes()).hexdigest()
    status = git(workspace, "--no-optional-locks", "status", "--porcelain")  # writes no index
    return status, git(workspace, "rev-parse", "HEAD"), index


def script_the_turn(fake_model: FakeAnthropic) -> None:
    """write a.txt, edit b.py, and a shell command that writes c.txt and removes d.txt."""
    fake_model.script.tool_use("read_file", path="b.py")
    fake_model.script.tool_uses(
        ("write_file", {"path": "a.txt", "content": "new file\n"}),
        ("edit_file", {"path": "b.py", "old_string": "return 1", "new_string": "return 2"}),
        ("bash", {"command": "echo x > c.txt && rm d.txt"}),
    )
    fake_model.script.text("All three done.")


def tree_bytes(workspace: Path) -> dict[str, bytes]:
    """Every file of the workspace outside .git and the agent's folders, with its bytes."""
    skip = {".git", ".agent", ".transcripts", "logs", "notes"}
    return {
        p.relative_to(workspace).as_posix(): p.read_bytes()
        for p in sorted(workspace.rglob("*"))
        if p.is_file() and not skip & set(p.relative_to(workspace).parts)
    }
