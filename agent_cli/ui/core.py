"""What both REPL front ends share (the screen one and the plain no-TTY one): the runtime, the
panel state folded from events, slash commands, and turn/compaction driving."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from agent_cli.core.errors import AgentError
from agent_cli.core.events import CompactionDone, Event
from agent_cli.memory.episode import Episode
from agent_cli.runtime.runtime import Runtime
from agent_cli.runtime.work import background_jobs
from agent_cli.ui.screen.side_panel import PanelState
from agent_cli.ui.slash import commands as slash

if TYPE_CHECKING:
    from agent_cli.ui.input.terminal import ScreenTerminal

log = logging.getLogger(__name__)


@runtime_checkable
class SessionFiles(Protocol):
    """What the panel asks of the checkpoints extension's service, when it is there."""

    def session_files(self) -> int | None: ...


def restored_panel(runtime: Runtime) -> PanelState:
    """The panel of a resumed session: its todos, notes, compactions and totals."""
    window = runtime.settings.context_window(runtime.session.model)
    state = PanelState(context_window=window, compact_at=runtime.tuning.compact_at())
    restored = runtime.restored
    if restored is None:
        return state
    state.todos, state.notes = list(restored.todos), list(restored.notes)
    state.compactions, state.calls = restored.compactions, restored.calls
    usage = restored.usage
    state.input_tokens = usage.input_tokens + usage.cache_creation_input_tokens
    state.output_tokens, state.cache_read = usage.output_tokens, usage.cache_read_input_tokens
    price = runtime.settings.prices.get(runtime.session.model)
    known = usage.cost(price)
    state.cost_usd, state.cost_unpriced = known or 0.0, known is None
    if restored.context_tokens is not None:  # the newest request's own figure
        state.context_tokens = restored.context_tokens
    elif restored.messages:  # after a compaction: an estimate until the next request reports
        state.context_tokens = len(json.dumps(restored.messages)) // 4
    checkpoints = runtime.extension("checkpoints")
    if isinstance(checkpoints, SessionFiles):
        state.files_changed = checkpoints.session_files()
    return state


class ChatCore:
    """Slash-command host and event sink; subclasses decide how things are shown."""

    color = False
    terminal: ScreenTerminal | None = None  # the screen's (clipboard, vi mode); none in plain

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.jobs = background_jobs(runtime.extension)  # held past the run's end: what it kept
        self.panel_state = restored_panel(runtime)
        self.panel_parts = runtime.parts("panel_parts")  # asked for their lines at each redraw
        self.busy = False
        self._task: asyncio.Task[None] | None = None
        runtime.memory.on_saved = self.episode_saved
        runtime.listeners.append(self.background_event)

    # -- shown by subclasses -----------------------------------------------------------------

    def say(self, text: str, style: str = "") -> None:
        raise NotImplementedError

    def columns(self) -> int:
        return 80  # no screen (plain output): what a reader of a pipe or a log gets

    def on_event(self, event: Event) -> None:
        raise NotImplementedError

    def on_interrupt(self) -> None:
        raise NotImplementedError

    def on_idle(self) -> None:
        """The turn (or compaction) is over."""

    def background_event(self, event: Event) -> None:
        """Between turns (usage and warnings of episode writing): into the panel."""
        self.panel_state.apply(event)
        self.on_event(event)

    def exit(self) -> None:
        raise NotImplementedError

    async def ask(self, question: str, answers: dict[str, str]) -> str | None:
        """A one-key question; None where none can be asked (no terminal)."""
        return None

    can_pick = False  # a front end with a picker (the screen) says so

    async def pick(self, title: str, options: list[str]) -> int | None:
        """One of `options`, picked on screen; None if cancelled or there is no picker."""
        return None

    # -- commands ----------------------------------------------------------------------------

    def command(self, line: str) -> None:
        slash.run(self, line)

    def switched(self, message: str) -> None:
        self.panel_state = restored_panel(self.runtime)
        self.panel_parts = self.runtime.parts("panel_parts")
        self.say(message)

    def rewound(self, message: str, prompt: str) -> None:
        """The conversation went back to before `prompt`'s turn (what was shown stays shown)."""
        self.panel_state = restored_panel(self.runtime)
        self.say(message)

    def send(self, text: str) -> None:
        if self.busy:
            self.say("A turn is running: wait for it or stop it with Ctrl-C.", "yellow")
            return
        self.start(self.turn(text))

    def compact(self, focus: str | None) -> None:
        if self.busy:
            self.say("A turn is running: wait for it or stop it with Ctrl-C.", "yellow")
            return
        self.start(self._compaction(focus))

    def remember(self) -> None:
        """/remember: an episode of the session so far, written in the background."""
        if self.busy:
            self.say("A turn is running: /remember once it ends.", "yellow")
            return
        self.start(self._remembering())

    def episode_saved(self, episode: Episode) -> None:
        self.panel_state.episode = {"id": episode.id, "title": episode.title}
        self.say(f"◆ episode saved: {episode.title} ({episode.id})", "dim")

    def interrupt(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()  # the runtime's turn runs in this task

    # -- driving -----------------------------------------------------------------------------

    def start(self, events: Callable[[], AsyncIterator[Event]]) -> asyncio.Task[None]:
        self.busy = True
        self._task = asyncio.get_running_loop().create_task(self._drive(events))
        return self._task

    def turn(self, text: str) -> Callable[[], AsyncIterator[Event]]:
        """A prompt (its `@path` files attached), or `!command` run in the shell."""

        return lambda: self.runtime.submit(text)

    def _remembering(self) -> Callable[[], AsyncIterator[Event]]:
        async def events() -> AsyncIterator[Event]:
            if await self.runtime.memory.remember():
                self.say(
                    "Writing an episode of this session in the background (/memory lists "
                    "it once saved)."
                )
            else:
                self.say("Nothing new to remember since the last episode.")
            return
            yield  # an async generator without events

        return events

    def _compaction(self, focus: str | None) -> Callable[[], AsyncIterator[Event]]:
        async def events() -> AsyncIterator[Event]:
            compacted = False
            async for event in self.runtime.compact(focus):
                compacted = compacted or isinstance(event, CompactionDone)
                yield event
            if not compacted:
                self.say("Nothing was compacted.")

        return events

    async def _drive(self, events: Callable[[], AsyncIterator[Event]]) -> None:
        try:
            async for event in events():
                self.panel_state.apply(event)
                self.on_event(event)
        except asyncio.CancelledError:  # Ctrl-C: the loop has written the interrupted results
            self.on_interrupt()
        except AgentError as e:
            self.say(f"✗ {e}", "bold red")
        except Exception as e:  # the REPL survives whatever one turn does
            log.exception("turn failed")
            self.say(f"✗ internal error: {type(e).__name__}: {e} (see logs/agent.log)", "bold red")
        finally:
            self.busy = False
            self.on_idle()

    async def close(self) -> None:
        """At exit: episode work still running is waited for (bounded), then the client closes."""
        if self.runtime.memory.busy:
            wait = self.runtime.settings.background_wait_s
            self.say(f"Finishing the episode being written (up to {wait:g} s)…", "dim")
        await self.runtime.aclose()

    def exit_message(self) -> str:
        sid = self.runtime.session.id
        kept = self.jobs.kept_listing() if self.jobs is not None else ""
        kept += "\n" if kept else ""
        return f"{kept}Session {sid}. Resume it with: agent chat --resume {sid}"
