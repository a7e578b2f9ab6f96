"""The sandbox of one run: its settings, the probe done once, and the argv of each command."""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.outside.paths import program
from agent_cli.core.settings.sandbox import SandboxSettings
from agent_cli.ext.sandbox.handoff import Handoff
from agent_cli.ext.sandbox.policy import SandboxPolicy
from agent_cli.ext.sandbox.probe import SandboxProbe, probe
from agent_cli.ext.sandbox.wrap import SandboxUnavailable, wrap

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


@dataclass(frozen=True)
class Confinement:
    """How shell commands of a workspace run under `settings` (SPEC §5, §12)."""

    settings: SandboxSettings
    workspace: Path
    state_dir: Path | None = None
    added: tuple[Path, ...] = ()  # /add-dir's directories, writable as the workspace is
    # workspace files the agent runs later outside the sandbox (trusted hooks' scripts, MCP
    # and language servers, the status line): read-only inside
    run_later: tuple[Path, ...] = ()

    def unconfined(self, unsandboxed: bool = False) -> bool:
        """Would a command run with all of the user's rights? Not when confined, nor in
        `required` mode (then a command the sandbox cannot hold does not run at all)."""
        if self.settings.mode == "required":
            return False
        if unsandboxed or self.settings.mode == "off":
            return True
        return found().mechanism is None

    def policy(self) -> SandboxPolicy:
        state = None if self.state_dir in (None, self.workspace) else self.state_dir
        return SandboxPolicy(
            workspace=self.workspace,
            home=Path.home(),
            write_paths=tuple(self.settings.write_paths),
            deny_read=tuple(self.settings.deny_read),
            state_dir=state,
            added=self.added,
            run_later=self.run_later,
            unix_sockets=self.settings.allow_unix_sockets,
        )

    def networked(self, unsandboxed: bool = False) -> bool:
        """Would the command reach the network only through the agent's proxy? (bubblewrap)"""
        mode = self.settings.mode
        if mode != "required" and (unsandboxed or mode == "off"):
            return False
        return found().mechanism == "bwrap"

    def argv(
        self,
        argv: list[str],
        unsandboxed: bool = False,
        channel: int | None = None,
        handoff: Handoff | None = None,
    ) -> list[str]:
        """`argv` confined; unchanged when unsandboxed, off, or (auto) nothing can confine.
        SandboxUnavailable in `required` mode without a mechanism, and for any unsandboxed
        command in `required` mode, whatever the permission mode or rules said."""
        probed = self.confines(unsandboxed)
        if probed is None:
            return list(argv)
        return wrap(argv, self.policy(), probed, self.settings.mode, channel, handoff)

    def confines(self, unsandboxed: bool = False) -> SandboxProbe | None:
        """The mechanism argv() confines the command with; None when it runs unconfined.
        SandboxUnavailable where argv() would raise it."""
        mode = self.settings.mode
        if unsandboxed and mode == "required":
            raise SandboxUnavailable(
                "sandbox.mode is required: no command runs outside the sandbox, so "
                '"unsandboxed": true is refused. Run it confined, or ask the user to run it'
            )
        if unsandboxed or mode == "off":
            return None
        probed = found()
        if probed.mechanism is None and mode == "required":
            raise SandboxUnavailable(probed.refusal())
        return probed if probed.mechanism is not None else None

    def state(self) -> str:
        """The status bar's word: `sandbox bwrap`, `sandbox off`, or the fallback."""
        if self.settings.mode == "off":
            return "sandbox off"
        mechanism = found().mechanism
        if mechanism is None:
            return "sandbox unavailable" if self.settings.mode == "required" else "no sandbox"
        return f"sandbox {mechanism}"


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


def _home_relative(path: Path) -> str:
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


def _shown(path: Path, workspace: Path) -> str:
    return str(path.relative_to(workspace)) if path.is_relative_to(workspace) else str(path)


def describe(confinement: Confinement) -> list[str]:
    """`/sandbox`: the rules in force, one line each."""
    settings = confinement.settings
    lines = [f"{confinement.state()} (mode {settings.mode})"]
    notice = startup_notice(settings)
    if notice:
        lines.append(notice)
    policy = confinement.policy()
    writable = [*policy.writable(), f"$TMPDIR={policy.tmpdir()}"]
    lines.append("writable: " + ", ".join(writable))
    inside = [_shown(Path(p), policy.workspace) for p in policy.protected()[:8]]
    lines.append("read-only inside: " + ", ".join(inside))
    lines.append("hidden: " + ", ".join(_home_relative(Path(p)) for p in policy.hidden()))
    sockets = "allowed (sandbox.allow_unix_sockets)" if policy.unix_sockets else "refused"
    lines.append(f"new unix sockets: {sockets}")
    allowed = settings.network.allowed_domains
    network = ", ".join(allowed) if allowed else "none allowed"
    if confinement.networked():
        network += " (through the agent's proxy; any other host is asked in chat, refused in run)"
    lines.append("network: " + network)
    return lines
