"""The sandbox of one run: its settings, the probe done once (probe.found), and the argv of
each command."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.settings.sandbox import SandboxSettings
from agent_cli.ext.sandbox.handoff import Handoff
from agent_cli.ext.sandbox.policy import SandboxPolicy
from agent_cli.ext.sandbox.probe import SandboxProbe, startup_notice
from agent_cli.ext.sandbox.probe import found as found  # a goal's check takes it from here
from agent_cli.ext.sandbox.wrap import SandboxUnavailable, wrap


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
