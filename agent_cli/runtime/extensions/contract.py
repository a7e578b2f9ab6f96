"""The extension contract: what a feature contributes to the agent, declared in one value.

An extension is an `Extension`: its name (its settings section's key, and its entry point's
name when a package brings it), the extensions it needs, and what it contributes. The spine
calls the contributions of the extensions it was given and imports none of them.

The spine calls: `settings` (and `narrow`), `tools`, `stages`, `guides`, `observers`,
`middleware` and `around_turn` (per session, in runtime/assembly.py), `service` (once per run,
when first asked for), `ports` (by name, when the spine asks for one), `slash_commands` and
`cli`; `agent chat` makes `panel_parts` per session and draws them in its side panel, and
its `status_parts` once, drawn in its status bar.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from pydantic import BaseModel

from agent_cli.core.settings.sections import Key
from agent_cli.core.settings.strict import StrictSettings
from agent_cli.core.tool_contract import AnyTool, InputT, Tool
from agent_cli.tools.registry import input_schema

if TYPE_CHECKING:
    import typer

    from agent_cli.context.ports import Guide, Stage, TurnObserver
    from agent_cli.core.files.paths import Paths
    from agent_cli.core.settings.schema import Settings
    from agent_cli.policy.trust import TrustItem
    from agent_cli.policy.turn_hooks import TurnHooks, TurnWrapper

SectionT = TypeVar("SectionT", bound=BaseModel)
Made = TypeVar("Made")


class ExtensionSettings(StrictSettings):
    """The base of an extension's settings section: an unknown key is an error (exit 2)."""


@dataclass(frozen=True)
class ExtensionContext:
    """What an extension's contributions are made with: one per extension and session (a
    /clear opens a new session, and its tools are made again)."""

    name: str  # the extension's
    workspace: Path
    paths: Paths  # the state directory's folders (logs, transcripts, notes)
    settings: Settings  # the whole run's, the extensions' sections included
    session_id: str
    services: Callable[[str], object | None] = lambda name: None
    """An extension's run-wide service by its name (`Extension.service`), made when first asked
    for; None when that extension is not there."""
    ports: Callable[[str], object | None] = lambda name: None
    """A port of the run by its name (`"plugin_bundles"`), made by the first loaded extension
    providing it; None when none does. No dormant built-in is woken for it: one that provides
    a port is loaded when its own `asked` holds. Callers check the type they expect."""

    def section(self, model: type[SectionT]) -> SectionT:
        """This extension's own settings section, validated; its defaults when the settings
        were made without it (a test's bare `Settings()`)."""
        value = getattr(self.settings, self.name, None)
        if value is None or self.name not in type(self.settings).model_fields:
            return model()
        if not isinstance(value, model):
            raise TypeError(f"the '{self.name}' section is a {type(value).__name__}")
        return value


Make = Callable[[ExtensionContext], Sequence[Made]]
"""A contribution made per session from its context."""


class ExtensionTool(Tool[InputT]):
    """The base of an extension's tool (core/tool_contract.py's `Tool`, plus what a tool from
    outside the agent must bring): its own `description` (the agent's `prompts/tools/` has
    none for it). Unless `read_only`, it is asked for before it runs, as an MCP server's tool
    is: plan mode refuses it and a headless run denies it unless an allow rule names it."""

    description: ClassVar[str] = ""

    @property
    def asks_permission(self) -> bool:
        return not self.read_only

    def schema(self) -> dict[str, Any] | None:
        text = "\n\n".join(p for p in (self.description, self.description_extra()) if p.strip())
        return {"name": self.name, "description": text, "input_schema": input_schema(self)}


class CommandPort(Protocol):
    """What an extension's slash command may ask of the front end that runs it (`agent chat`
    adapts its REPL to this; the contract knows no UI)."""

    context: ExtensionContext  # the current session's

    def say(self, text: str, style: str = "") -> None:
        """Lines into the conversation's scrollback; `style` a rich style ("red", "dim")."""
        ...

    def send(self, text: str) -> None:
        """`text` as the user's next prompt: a turn runs (refused while one runs)."""
        ...

    def columns(self) -> int:
        """The width `say` lays text out at."""
        ...

    @property
    def front(self) -> object:
        """The front end itself (`agent chat`: its REPL): a built-in extension's chat code
        checks its type and drives its dialogs; a package's command needs nothing of it."""
        ...


CommandRun = Callable[[CommandPort, str], Awaitable[None] | None]
"""Runs a command with its argument text. A coroutine is awaited as the chat's current work
(Ctrl-C stops it); whatever it raises is said in one red line, and the chat goes on."""


@dataclass(frozen=True)
class SlashCommand:
    name: str  # "/hello": a slash, then lower-case letters, digits, '-' or '_'
    about: str  # its line in /help
    run: CommandRun
    usage: str = ""  # as /help shows it ("/hello [NAME]"); the name alone when empty


class PanelPart(Protocol):
    """A section of `agent chat`'s side panel: `name` its heading, `lines` asked each time the
    panel is drawn (a line longer than `width` is cut); no lines: no section."""

    name: str

    def lines(self, width: int) -> list[str]: ...


class StatusPart(Protocol):
    """A part of `agent chat`'s status bar, made as the chat starts. `text()` is asked at every
    redraw, so it returns what the part keeps (it reads nothing there); "" shows nothing.
    `watch(changed)` once the chat's loop runs: the part calls `changed` when its text changed
    (a task of its own may poll); `close()` as the chat ends."""

    def text(self) -> str: ...

    def watch(self, changed: Callable[[], None]) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Extension:
    """A feature, as it plugs into the agent. Only `name` is required."""

    name: str  # lower-case letters, digits and '_'; the settings section's key
    about: str = ""  # one line: what it adds
    requires: tuple[str, ...] = ()  # extensions loaded before it; missing: it is skipped
    settings: type[BaseModel] | None = None  # its section (extra="forbid": ExtensionSettings)
    tools: Make[AnyTool] | None = None  # offered to the model (and to subagents)
    slash_commands: Sequence[SlashCommand] = ()  # listed in /help, run in `agent chat`
    narrow: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] | None = None
    """An untrusted workspace's section (first argument) narrowed against the user's (second):
    what may stay of it. None: the workspace's section is ignored until `agent trust`."""
    trust_items: Callable[[Path], list[TrustItem]] | None = None
    """What the workspace's files ask it to run that only `agent trust` lets (its MCP servers),
    as `agent trust` shows and records them; a built-in's files are declared in the registry
    (`Declared.trusts`), and it is imported for this only where one of them is there."""
    keys: Mapping[str, Key] = field(default_factory=dict)
    """Top-level settings keys it brings beside its section, each with its own `narrow` (a
    built-in's keys older than it, declared in the registry too: setting one loads it)."""
    cli: Callable[[], typer.Typer] | None = None
    """`agent <command> ...`: a typer app; its command names are declared with the extension
    (a built-in's in the registry, so the command line lists them without importing it)."""
    stages: Make[Stage] | None = None
    """Context stages, run before each request (after the budget, before the spine's own)."""
    guides: Make[Guide] | None = None
    """Request-only guidance."""
    observers: Make[TurnObserver] | None = None
    """Hear each turn's events."""
    middleware: Make[TurnHooks] | None = None
    """What wraps a turn (checkpoints, goals): before it, and after it with a reason to go on."""
    around_turn: Make[TurnWrapper] | None = None
    """What wraps a turn's events (checkpoints: one taken beside the first request and said
    first, what the turn changed said before its end): outside the hooks, first one outermost."""
    service: Callable[[Any], object] | None = None
    """What it keeps for the whole run (a board of jobs, a manager of servers), made from the
    Runtime (`agent_cli.runtime.runtime.Runtime`: its argument) the first time anything asks
    for it; its `aclose()`, if it has one, is awaited when the run ends."""
    panel_parts: Make[PanelPart] | None = None
    """Sections of the chat's side panel, made per session."""
    status_parts: Make[StatusPart] | None = None
    """Parts of the chat's status bar (what the user should act on: sessions that wait), made
    once with the first session's context."""
    ports: Mapping[str, Callable[[ExtensionContext], object]] = field(default_factory=dict)
    """The ports it provides, by the port's name (`"shell_wrapper"`, `"after_edit"`): the spine
    asks for a port by name when it needs one, and the first extension providing it makes it
    for the session; the port's type is the spine's (a Protocol where it is asked for)."""
