"""`agent attach NAME` on a terminal: `agent chat`'s screen (ui/screen/live.py) on a running
background session, fed from its socket (attach_link.py) instead of a local Runtime.

This is the screen's Controller: the session's own events (acp_events.py) go through the
chat's TurnView, side panel and Ctrl-O log as `agent chat` shows them live; what it waits on
is asked by the chat's own approver and asker (ui/approver.py, ui/dialogs/asker.py) and the
answer goes back (the first of any attached client wins: the others' dialogs close); a typed
line is steering while it works, its next prompt while it is idle. Ctrl-D on an empty line
(or Ctrl-C twice when it is idle) detaches: the session goes on. The terminal rings (the
`notify` settings) when it starts waiting or a long turn ends."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import TypeAdapter

from agent_cli.core.asking import Question
from agent_cli.core.events import Event, Steered, TurnEnd
from agent_cli.core.settings.features import NotifySettings
from agent_cli.policy.approval import ApprovalRequest, Denial
from agent_cli.ui.approver import ScreenApprover, use_color
from agent_cli.ui.attention import Attention
from agent_cli.ui.dialogs.asker import ScreenAsker
from agent_cli.ui.render import render
from agent_cli.ui.render.tool_log import ToolLog
from agent_cli.ui.screen.live import ChatScreen
from agent_cli.ui.screen.panel_fit import fit_panel
from agent_cli.ui.screen.side_panel import PanelState
from agent_cli.ui.turn import TurnView

log = logging.getLogger(__name__)
EVENTS: TypeAdapter[Event] = TypeAdapter(Event)
SPIN_S = 0.1
Send = Callable[[str, dict[str, Any]], Awaitable[Any]]  # a request to the session
NOT_STOPPED = "Esc and Ctrl-C do not stop a background session: agent stop {name} does"


class Pinged(Attention):
    """The chat's ping without a Runtime: the `notify` settings of this user and workspace;
    the `notification` hooks are the session's own, not run here."""

    def __init__(self, notify: NotifySettings, write: Callable[[str], None]) -> None:
        super().__init__(None, write)
        self.notify = notify

    def settings(self) -> NotifySettings:
        return self.notify

    def hook(self, kind: str, message: str) -> None:
        pass


class AttachedChat:
    """The screen's Controller on an attached session."""

    def __init__(self, screen: ChatScreen, name: str, send: Send, tools: ToolLog) -> None:
        self.screen, self.name, self.send = screen, name, send
        self.color = use_color()
        self.busy = False
        self.view = TurnView(color=self.color)
        self.panel_state = PanelState()
        self.tools = tools  # what Ctrl-O shows: the history's calls, then the live ones
        self.attention = Pinged(NotifySettings(), screen.ping)
        self.approver = ScreenApprover(screen)
        self.approver.attention, self.approver.view = self.attention, self.view
        self.asker = ScreenAsker(screen, self.attention, self.color, self.view.asked)
        self.asking: dict[int, asyncio.Task[None]] = {}  # key -> its dialog
        self.one = asyncio.Lock()  # one dialog at a time, as in chat
        self.state = "idle"
        self._ticker: asyncio.Task[None] | None = None
        self._told = False
        self.sending: set[asyncio.Task[None]] = set()

    # -- from the session ----------------------------------------------------------------------

    async def handle(self, method: str, params: dict[str, Any]) -> None:
        """A notification of the session's (attach_link.py hands them over in order)."""
        if method == "_agent/event":
            self.on_event(EVENTS.validate_python(params["event"]))
        elif method == "_agent/waiting":
            key = int(params["key"])
            self.asking[key] = asyncio.ensure_future(self._answer(key, params))
        elif method == "_agent/answered":
            task = self.asking.pop(int(params["key"]), None)
            if task is not None and not task.done():
                task.cancel()  # another client answered it first
                self.say("(answered from another attached terminal)", "dim")

    def on_event(self, event: Event) -> None:
        if not self.busy and not isinstance(event, TurnEnd):
            self.started()
        self.tools.feed(event)
        self.panel_state.apply(event)
        steered = isinstance(event, Steered)  # between two replies: the first one ends here
        lines = [*self.view.flush(), *self.view.feed(event)] if steered else self.view.feed(event)
        for line in lines:
            self.screen.commit(line)
        if isinstance(event, Steered):
            for text in event.texts:
                self.say(f"↳ sent to the model: {' '.join(text.split())[:200]}", "dim")
        if isinstance(event, TurnEnd):
            self.ended()
        self.screen.invalidate()

    def started(self) -> None:
        """A turn runs (it was running as this client joined, or it just began)."""
        self.busy, self.state = True, "working"
        self.view.begin()
        self.attention.turn_started()
        if self._ticker is None or self._ticker.done():
            self._ticker = asyncio.ensure_future(self._tick())

    def ended(self) -> None:
        self.busy, self.state = False, "idle"
        for line in self.view.flush():
            self.screen.commit(line)
        self.screen.commits.hurry()  # the turn's last lines: shown now
        self.view.waiting = False
        self.attention.turn_ended(self.view.elapsed())

    async def _tick(self) -> None:
        while self.busy:
            if self.view.spinning and not self.screen.asking:  # a frame only for a spinner
                self.view.frame += 1
                self.screen.invalidate()
            await asyncio.sleep(SPIN_S)

    async def _answer(self, key: int, waiting: dict[str, Any]) -> None:
        """Asked on this screen as chat asks it; the answer goes back to the session."""
        async with self.one:
            self.state = f"waiting: {waiting['kind']}"
            try:
                given = await self._dialog(waiting)
            finally:
                self.state = "working" if self.busy else "idle"
        self.asking.pop(key, None)  # answered here: its `_agent/answered` closes nothing
        reply = await self.send("_agent/answer", {"key": key, **given})
        if isinstance(reply, dict) and not reply.get("ok"):
            self.say(f"not taken: {reply.get('error')}", "yellow")

    async def _dialog(self, waiting: dict[str, Any]) -> dict[str, Any]:
        if waiting["kind"] == "approval":
            decision = await self.approver.approve(ApprovalRequest(**waiting["request"]))
            if isinstance(decision, Denial):
                return {"decision": "deny", "feedback": decision.feedback}
            return {"decision": decision}
        if waiting["kind"] == "question":
            questions = [Question.model_validate(q) for q in waiting["questions"]]
            answers = await self.asker.ask(questions) or []
            return {"answers": [a.model_dump() for a in answers]}
        plan = await self.asker.present_plan(str(waiting["plan"]), str(waiting["back_to"]))
        return {"plan": plan.model_dump()}

    # -- the screen's Controller ---------------------------------------------------------------

    def live(self, width: int) -> str:
        self.view.width = self.screen.columns()
        return self.view.live(width)

    def panel(self, columns: int, rows: int, mode: str) -> str:
        return fit_panel(self.panel_state, columns, self.color, rows, mode)

    def toolbar(self) -> str:
        state = self.screen.awaiting() or self.state
        return f"{self.name} · {state} · Ctrl-D detaches (it goes on)"

    def submit(self, text: str) -> None:
        if text.strip().startswith("/"):
            self.say("Slash commands are the session's own: not sent from here.", "yellow")
            return
        if not self.busy:  # its next prompt: the events of its turn follow
            self.screen.commit(render.user_line(text, self.screen.columns(), self.color))
        task = asyncio.ensure_future(self._prompt(text))
        self.sending.add(task)  # held until sent: the loop keeps only a weak reference
        task.add_done_callback(self.sending.discard)

    async def _prompt(self, text: str) -> None:
        with contextlib.suppress(Exception):
            await self.send("session/prompt", {"prompt": [{"type": "text", "text": text}]})
            return
        self.say("not sent: the session closed the connection", "yellow")

    def interrupt(self) -> None:
        if not self._told:  # once: the keys that stop a turn in chat leave this one running
            self._told = True
            self.say(NOT_STOPPED.format(name=self.name), "dim")

    def queued_count(self) -> int:
        return 0

    def recall_queued(self) -> str | None:
        return None

    def to_background(self) -> None:
        pass

    def cycle_mode(self) -> None:
        pass

    def tool_log(self) -> str:
        return self.tools.text()

    def say(self, text: str, style: str = "") -> None:
        self.screen.commit(render.info_line(text, self.screen.columns(), self.color, style))
