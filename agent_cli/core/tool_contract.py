"""What every tool is: a pydantic input model, a description, and an async `run`.

`ToolResult.content` is what the model reads; `summary` and `display` are for the user.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

from agent_cli.core.asking import (
    Answer,
    PlanDecisionResult,
    Question,
    headless_ask,
    headless_present,
)
from agent_cli.core.diagnosing import Diagnoser
from agent_cli.core.inbox import Inbox

if TYPE_CHECKING:
    from agent_cli.core.events import Event
    from agent_cli.core.files.paths import Paths
    from agent_cli.core.payloads import ToolDisplay
    from agent_cli.core.settings.schema import Settings


class ToolInput(BaseModel):
    """Base of every tool's input: unknown fields are refused."""

    model_config = ConfigDict(extra="forbid")


InputT = TypeVar("InputT", bound=ToolInput)

# the tool_use id of the call being run (set by dispatch; each concurrent call has its own)
current_call_id: ContextVar[str | None] = ContextVar("current_call_id", default=None)
# the paths one call resolved (set by dispatch around its check and run; each concurrent call
# has its own): the permission check and the tool act on the path resolved once, not on three
# resolutions (each a walk of its parents) a symlink could change between
call_paths: ContextVar[dict[tuple[Path, str], Path] | None] = ContextVar("call_paths", default=None)


@dataclass
class ToolResult:
    content: str
    is_error: bool = False
    summary: str = ""
    display: ToolDisplay | None = None
    # blocks that follow the text in the tool_result (images from an MCP server)
    blocks: list[dict[str, Any]] = field(default_factory=list)


UserAllows = Callable[[], Awaitable[bool]]
HostReview = Callable[[str, int, str, UserAllows], Awaitable["tuple[bool, str] | None"]]
"""Auto mode's answer to a sandboxed command's unlisted host: (host, port, command, ask the user)
-> (allowed, why not) or None when auto mode is off (the user is asked as in `default`)."""


async def no_review(
    host: str, port: int, command: str, user: UserAllows
) -> tuple[bool, str] | None:
    return None


@dataclass
class ToolContext:
    """What a tool may touch. One per session; subagents get their own copy."""

    workspace: Path
    paths: Paths
    session_id: str
    settings: Settings
    emit: Callable[[Event], None] = lambda _event: None
    secrets: tuple[str, ...] = ()
    # resolved path -> sha256 of the content the agent last read or wrote (edit_file's guard)
    file_state: dict[Path, str] = field(default_factory=dict)
    # paths written or edited in this session, for notes and episodes
    touched: set[Path] = field(default_factory=set)
    # notices and the user's queued messages for the main agent's next request (shared by copies)
    inbox: Inbox = field(default_factory=Inbox)
    # the user's answers to ask_user (None: nobody to ask); the front ends inject theirs
    ask: Callable[[list[Question]], Awaitable[list[Answer] | None]] = headless_ask
    # auto mode's reviewer for a confined command's unlisted host (runtime/assembly.py sets it)
    review_host: HostReview = no_review
    # the user's decision on a presented plan (headless: the plan is handed over, the run ends)
    present_plan: Callable[[str], Awaitable[PlanDecisionResult]] = headless_present
    # language servers' diagnostics after an edit (None: nobody checks)
    diagnoser: Diagnoser | None = None
    # directories the user added (/add-dir): read and written as the workspace is (resolved)
    extra_roots: list[Path] = field(default_factory=list)
    # workspace files the agent itself runs outside the sandbox later (trusted hooks' scripts,
    # language and MCP servers): read-only to confined commands
    run_later: tuple[Path, ...] = ()
    # the workspace resolved, kept for the workspace it was resolved from: a file tool's call
    # asked it four times (permission subject, display paths), each a walk of its parents
    _root: tuple[Path, Path] | None = field(default=None, init=False, repr=False, compare=False)

    def resolve(self, path: str) -> Path:
        held = call_paths.get()
        if held is not None and (hit := held.get((self.workspace, path))) is not None:
            return hit
        p = Path(path).expanduser()
        resolved = (p if p.is_absolute() else self.workspace / p).resolve()
        if held is not None:
            held[(self.workspace, path)] = resolved
        return resolved

    def workspace_root(self) -> Path:
        held = self._root
        if held is None or held[0] is not self.workspace:
            held = self._root = (self.workspace, self.workspace.resolve())
        return held[1]


class Tool(ABC, Generic[InputT]):
    name: ClassVar[str]
    input_model: type[InputT]
    read_only: ClassVar[bool] = False
    # its input is structured data the model writes (a note): unknown keys are dropped and
    # logged instead of refused (lenient_json); other tools refuse them
    lenient_input: ClassVar[bool] = False
    # may run beside other calls of its round even though it is not read-only (e.g. `task`)
    concurrent: ClassVar[bool] = False

    @abstractmethod
    async def run(self, args: InputT, ctx: ToolContext) -> ToolResult: ...

    def describe_call(self, args: InputT) -> str:
        """A short label for the UI, e.g. 'read_file a.py'."""
        return self.name

    def preview(self, args: InputT, ctx: ToolContext) -> str:
        """What the call would do, shown when the user is asked (a diff); "" for nothing."""
        return ""

    def precheck(self, args: InputT, ctx: ToolContext) -> ToolResult | None:
        """The result the call would fail with, known without running it (an edit whose text
        is not in the file): the user is not asked about it. None: it may succeed."""
        return None

    def schema(self) -> dict[str, Any] | None:
        """The tool's whole API definition when it is not built from `input_model` and a prompt
        file (an MCP server's tool brings its own)."""
        return None

    def description_extra(self) -> str:
        """Appended to the tool's description (fixed for the session: the prefix stays cached)."""
        return ""


AnyTool = Tool[Any]


class KnownFailure(str):
    """A gate's answer that is not a denial: the call would fail anyway (`Tool.precheck`),
    so it ends with the tool's own error and summary, unasked."""

    summary: str

    def __new__(cls, result: ToolResult) -> KnownFailure:
        made = super().__new__(cls, result.content)
        made.summary = result.summary
        return made


class Gate(Protocol):
    """Permissions and hooks around a call. `before` returns a denial reason, or None."""

    async def before(self, tool: AnyTool, args: ToolInput, ctx: ToolContext) -> str | None: ...

    async def after(
        self, tool: AnyTool, args: ToolInput, result: ToolResult, ctx: ToolContext
    ) -> None: ...


class OpenGate:
    """Allows everything: used where no permission policy is wired (unit tests)."""

    async def before(self, tool: AnyTool, args: ToolInput, ctx: ToolContext) -> str | None:
        return None

    async def after(
        self, tool: AnyTool, args: ToolInput, result: ToolResult, ctx: ToolContext
    ) -> None:
        return None
