"""What the bash tool asks of a shell wrapper: the port `"shell_wrapper"` (the sandbox
extension provides it, made per session when the first command runs). The wrapper turns a
command into its confined argv and holds what that command needs while it runs (a network
proxy, descriptors), then tells its result what happened and settles what it left.

With no wrapper a command runs as it is, as `sandbox.mode: off` runs it; a `required` sandbox
refuses every command instead (nothing is there to confine it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from agent_cli.core.tool_contract import ToolContext, ToolResult

if TYPE_CHECKING:
    from agent_cli.core.outside.groups import Shell
    from agent_cli.core.settings.schema import Settings

SHELL_WRAPPER = "shell_wrapper"  # the port's name
SANDBOX = "sandbox"  # the extension whose run-wide service says how commands are confined
NO_WRAPPER = (
    "sandbox.mode is required, but no sandbox is there to confine commands (the sandbox "
    "extension is not loaded); nothing runs"
)


class ShellRefused(Exception):
    """The wrapper will not run the command at all; the message says why."""


class Confined(Protocol):
    """One confined command: what it inherits, and what happens once it has started and ended."""

    @property
    def pass_fds(self) -> tuple[int, ...]:
        """Descriptors the command inherits (its proxy's channel, what the wrapper binds)."""
        ...

    def started(self) -> None:
        """The command holds its own copies of the descriptors now."""
        ...

    def tell(self, result: ToolResult) -> ToolResult:
        """The result with what the wrapper did to the command (a line each)."""
        ...

    def when_ended(self, proc: Shell | None, settle: bool = False) -> None:
        """Once `proc` has ended (at once without one): what it held is let go; `settle`: what
        it left is settled too (a job's, or one stopped before it ended)."""
        ...


@runtime_checkable
class ShellWrapper(Protocol):
    """The port `"shell_wrapper"`: how the commands of a session run."""

    def unconfined(self, ctx: ToolContext, unsandboxed: bool) -> bool:
        """Would the command run with all of the user's rights? (Only then is it asked.)"""
        ...

    async def confine(
        self, ctx: ToolContext, command: str, argv: list[str], unsandboxed: bool
    ) -> tuple[list[str], Confined | None]:
        """The argv to start and what it holds; None: it runs as it is. ShellRefused when it
        must not run at all."""
        ...

    def prepare(self) -> None:
        """What every command needs, done now (the warm process does it once before it forks)."""
        ...


@runtime_checkable
class ShellStatus(Protocol):
    """What the run's sandbox (the extension `"sandbox"`'s service) tells the user."""

    def state(self) -> str:
        """The status bar's word: `sandbox bwrap`, `no sandbox`, `sandbox off`."""
        ...

    def notice(self) -> str | None:
        """The one line a run says when it cannot confine; None when it can (or is off)."""
        ...


def status_of(extension: Callable[[str], object | None]) -> ShellStatus | None:
    """The run's sandbox service from the Runtime's `extension`; None when it is not there."""
    found = extension(SANDBOX)
    return found if isinstance(found, ShellStatus) else None


def notice_of(extension: Callable[[str], object | None]) -> str | None:
    """The line a run says at its start when its commands will not be confined."""
    sandbox = status_of(extension)
    return sandbox.notice() if sandbox is not None else None


def required(settings: Settings) -> bool:
    """Must every command be confined? Then one with no wrapper does not run."""
    return settings.sandbox.mode == "required"
