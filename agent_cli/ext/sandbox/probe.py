"""Can this platform confine a command? If not: one line saying why, and the fix. Looked for
once per state of what decides it (`found`); what a run says at its start when it cannot."""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.outside import spawn
from agent_cli.core.outside.paths import program
from agent_cli.core.settings.sandbox import SandboxSettings

# its own user namespace with no capability at all (root inside keeps uid 0 but can neither
# remount nor set the clock), a session of its own (no TIOCSTI into a terminal), and its own
# network, processes, IPC, host name and cgroup view; it dies with the agent
NAMESPACES = (
    "--unshare-user",
    "--cap-drop",
    "ALL",
    "--unshare-net",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--new-session",
    "--die-with-parent",
)


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


# the kernel's switches for unprivileged user namespaces, which bwrap needs
USERNS_SWITCHES = (
    "/proc/sys/kernel/unprivileged_userns_clone",
    "/proc/sys/user/max_user_namespaces",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
)


@functools.cache
def _probe_for(path: str | None, _state: tuple[str, ...]) -> SandboxProbe:
    return probe(path)


def found() -> SandboxProbe:
    """The platform's mechanism, looked for once per PATH and per state of what decides it
    (the mechanism's file, the kernel's user-namespace switches): the probe starts bwrap once
    in a process, and once for all the children of a warm process (warmup.py), which still
    sees bubblewrap installed or the sysctl its notice names changed."""
    path = os.environ.get("PATH")
    return _probe_for(path, _state(path))


def _state(path: str | None) -> tuple[str, ...]:
    """What a probe's outcome depends on, read in well under a millisecond."""
    name = "sandbox-exec" if sys.platform == "darwin" else "bwrap"
    executable = program(name, Path.cwd(), path)
    parts = [executable or "-"]
    if executable is not None:
        try:
            info = Path(executable).stat()
            parts.append(f"{info.st_dev}:{info.st_ino}:{info.st_mtime_ns}:{info.st_mode}")
        except OSError:
            parts.append("-")
    for switch in USERNS_SWITCHES:
        try:
            parts.append(Path(switch).read_text(encoding="ascii").strip())
        except OSError:
            parts.append("-")
    return tuple(parts)


def startup_notice(settings: SandboxSettings) -> str | None:
    """The one line a run says when it cannot confine: auto's fallback, or required's refusal."""
    if settings.mode == "off":
        return None
    probed = found()
    if probed.mechanism is not None:
        return None
    if settings.mode == "required":
        return f"{probed.refusal()}; shell commands will not run"
    return probed.notice()
