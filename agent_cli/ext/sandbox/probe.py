"""Can this platform confine a command? If not: one line saying why, and the fix."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.outside import spawn
from agent_cli.core.outside.paths import program
from agent_cli.ext.sandbox.bwrap import NAMESPACES


@dataclass(frozen=True)
class SandboxProbe:
    """The mechanism found (bwrap, seatbelt) or None with the reason and the fix."""

    mechanism: str | None
    executable: str | None = None
    reason: str = ""
    fix: str = ""
    bind_fd: bool = False  # bwrap binds an open folder (--bind-fd, bubblewrap 0.7 and later)

    def notice(self) -> str:
        return f"sandbox off: {self.reason}; fix: {self.fix}"

    def refusal(self) -> str:
        return f"sandbox required but unavailable: {self.reason}; fix: {self.fix}"


def probe(path: str | None = None) -> SandboxProbe:
    """Looks for bubblewrap (Linux) or sandbox-exec (macOS) and tries bwrap once, with the
    namespaces every command gets (a setuid bwrap where user namespaces are off has none)."""
    if sys.platform == "darwin":
        found = program("sandbox-exec", Path.cwd(), path)
        if found:
            return SandboxProbe("seatbelt", found)
        return SandboxProbe(
            None, reason="sandbox-exec not found", fix="use macOS's /usr/bin/sandbox-exec"
        )
    bwrap = program("bwrap", Path.cwd(), path)  # never a workspace's own `bwrap`
    if bwrap is None:
        return SandboxProbe(
            None, reason="bubblewrap is not installed", fix="apt install bubblewrap"
        )
    trial = spawn.run(
        [bwrap, "--ro-bind", "/", "/", *NAMESPACES, "true"],
        capture_output=True,
        check=False,
        timeout=10,
    )
    if trial.returncode != 0:
        return SandboxProbe(
            None,
            reason="bubblewrap cannot create user namespaces",
            fix="sysctl -w kernel.unprivileged_userns_clone=1 "
            "(or kernel.apparmor_restrict_unprivileged_userns=0)",
        )
    usage = spawn.run([bwrap, "--help"], capture_output=True, text=True, check=False, timeout=10)
    return SandboxProbe("bwrap", bwrap, bind_fd="--bind-fd" in usage.stdout + usage.stderr)
