"""A workspace's own slash commands in `agent chat` (`.claude/commands/*.md`, ...): `/name args`
runs one as a turn, a workspace's `/review` or `/init` wins over the agent's, and Tab completes
them. The port `"workspace_commands"` gives them (project files, when loaded); without it a
workspace has none."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

from agent_cli.ui.slash.host import Host, context_of

if TYPE_CHECKING:
    from agent_cli.runtime.runtime import Runtime

PORT = "workspace_commands"


class WorkspaceCommands(Protocol):
    def resolves(self, name: str) -> bool:
        """`name` (without its slash) is one of the workspace's commands."""
        ...

    def completions(self) -> list[tuple[str, str]]:
        """(`/name`, what Tab shows beside it) of each one."""
        ...


def workspace_commands(runtime: Runtime) -> WorkspaceCommands | None:
    found = runtime.wiring.extensions.port(PORT, lambda name: context_of(runtime, name))
    return cast("WorkspaceCommands | None", found)


def run_workspace_command(host: Host, name: str, arg: str) -> bool:
    """True when `name` is the workspace's command, now sent as the next prompt (the turn
    expands it)."""
    commands = workspace_commands(host.runtime)
    if commands is None or not commands.resolves(name[1:]):
        return False
    host.send(f"{name} {arg}".strip())
    return True


def completion_items(runtime: Runtime) -> list[tuple[str, str]]:
    commands = workspace_commands(runtime)
    return commands.completions() if commands is not None else []
