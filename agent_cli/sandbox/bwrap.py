"""The bubblewrap argv that confines one command to a policy."""

from __future__ import annotations

import sys
from pathlib import Path

from agent_cli.sandbox.policy import SandboxPolicy

FORWARDER = Path(__file__).with_name("forwarder.py")


def _ro_binds(paths: list[Path]) -> list[str]:
    out: list[str] = []
    for path in paths:
        if path.exists():
            out += ["--ro-bind", str(path), str(path)]
    return out


def _hidden(paths: list[Path]) -> list[str]:
    out: list[str] = []
    for path in paths:
        if path.is_dir():
            out += ["--tmpfs", str(path), "--remount-ro", str(path)]
        elif path.exists():
            out += ["--ro-bind", "/dev/null", str(path)]
    return out


def through_proxy(argv: list[str], proxy: Path) -> list[str]:
    """`argv` run behind the in-sandbox forwarder to the agent's proxy at `proxy`."""
    return [sys.executable, "-I", "-S", str(FORWARDER), str(proxy), "--", *argv]


def bwrap_argv(
    bwrap: str, argv: list[str], policy: SandboxPolicy, proxy: Path | None = None
) -> list[str]:
    """Root read-only, the workspace and write_paths writable, state read-only, secrets hidden,
    no network but the proxy's socket, own pid namespace, killed with the agent."""
    args = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for path in policy.writable():
        if path.exists():
            args += ["--bind", str(path), str(path)]
    args += _ro_binds(policy.read_only_inside())
    args += ["--bind", str(policy.tmpdir()), str(policy.tmpdir())]  # inside the read-only .agent
    args += _hidden(policy.hidden())
    args += ["--unshare-net", "--unshare-pid", "--die-with-parent"]
    args += ["--setenv", "TMPDIR", str(policy.tmpdir()), "--chdir", str(policy.workspace)]
    return [*args, "--", *(through_proxy(argv, proxy) if proxy else argv)]
