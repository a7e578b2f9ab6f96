"""A background session that stays to talk: its prompt's turn, then `idle` until a message
comes (its next prompt) or it has waited `background.idle_minutes` (not while a session it
started still works: a lead waits for its workers). A message that comes while a turn runs
reaches the model at its next tool boundary, as steering does, but recorded as what it is (a
notice from `message`), never as the user's typing; one that comes as the model writes its last
reply becomes the next turn. A turn's final answer goes to the session that started it: the
prompt's to the session that launched this one (its parent), a message's to its sender."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.core.errors import UsageError
from agent_cli.core.events import ToolEnd, TurnEnd
from agent_cli.core.settings.sections import section
from agent_cli.ext.background import mail, registry
from agent_cli.ext.background.settings import BackgroundSettings
from agent_cli.ext.background.status import Status, one_line

if TYPE_CHECKING:
    from agent_cli.core.options import Options
    from agent_cli.runtime.extensions.registry import Extensions
    from agent_cli.runtime.runtime import Runtime

NAME = "background"
SOURCE = "message"  # what gave the model the text, in the transcript's notice


def extensions_for(options: Options) -> Extensions:
    """The run's extensions as `agent run` has them, this one loaded too: its settings section
    is read and its tools offered (a plain `agent run` never loads it)."""
    from agent_cli.runtime.build import asking, installed, overrides_of

    extensions = installed(asking(options, overrides_of(options)))
    extensions.wake(NAME)
    return extensions


class Talk:
    """One background session's turns, from its prompt to its last message."""

    def __init__(self, record: registry.Record, runtime: Runtime, status: Status) -> None:
        self.path, self.runtime, self.status = record.path, runtime, status
        self.parent = str(record.data.get("parent") or "")
        self.settings = section(runtime.settings, NAME, BackgroundSettings, BackgroundSettings())
        self.rung = asyncio.Event()
        self.rung.set()  # what was written before it listened is read first

    async def run(self, prompt: str) -> str:
        """Until the session ends by itself; why it ended ("" after a turn that failed)."""
        os.environ[mail.ENV] = str(self.path)  # its bash's `agent send`, `agent run --bg`
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(mail.RING, self.rung.set)
        self.status.set(listening=True)
        try:
            going = await self._turn(prompt, [self.parent]) if prompt.strip() else True
            while going:
                messages = await self._idle()
                if not messages:
                    minutes = self.settings.idle_minutes
                    return f"idle for {minutes:g} min" if minutes else ""
                going = await self._told(messages)
            return ""
        finally:  # the handler stays: a ring that comes late must not end the process
            self.status.set(listening=False)

    async def _turn(self, text: str, report_to: list[str]) -> bool:
        """One turn (its follow-ups too); True when it ended done, its answer sent on."""
        answer = ""
        async for event in self.runtime.turn(text):
            self.status.event(event)
            if isinstance(event, ToolEnd):
                self._hand_over()
            elif isinstance(event, TurnEnd):
                answer = event.text
        if self.status.ended != "done":
            return False
        for path in dict.fromkeys(p for p in report_to if p):
            self._answer(path, answer)
        return True

    def _hand_over(self) -> None:
        """Messages come while a turn runs: the model reads them before its next request."""
        if not self.rung.is_set():
            return
        self.rung.clear()
        for message in mail.take(self.path):
            self._heard(message)
            self.runtime.session.tool_ctx.inbox.notice(message.for_model(), SOURCE)

    def _heard(self, message: mail.Message) -> None:
        who = message.sender or "the user"
        what = "answer" if message.kind == mail.ANSWER else "message"
        self.status.say(f"{what} from {who}: {one_line(message.text)}")

    def _answer(self, path: str, answer: str) -> None:
        """The turn's final answer to the session that asked for it, unless it has ended."""
        to = registry.read(Path(path))
        if to is None or not answer.strip():
            return
        try:
            mail.post(to, answer, mail.ANSWER)
        except (UsageError, OSError) as e:  # it has ended: said in the log, this goes on
            self.status.say(f"the answer did not reach {to.name}: {one_line(str(e))}")
        else:
            self.status.say(f"answered {to.name}")

    async def _told(self, messages: list[mail.Message]) -> bool:
        """Messages that came while it was idle: its next turn, their senders told its answer
        (an answer starts a turn that answers nobody: two sessions never answer forever)."""
        from agent_cli.loop.shown import record_notice

        for message in messages:
            self._heard(message)
        text = "\n\n".join(message.for_model() for message in messages)
        record_notice(self.runtime.session, SOURCE, text)  # the agent's, never the user's typing
        self.status.set(state="working", last=one_line(messages[-1].text))
        asked = [m.sender_path for m in messages if m.kind == mail.MESSAGE]
        return await self._turn(text, asked)

    async def _idle(self) -> list[mail.Message]:
        """The messages that end its idleness; none when it waited long enough."""
        minutes = self.settings.idle_minutes
        self.status.set(state="idle")
        while True:
            self.rung.clear()
            if messages := mail.take(self.path):
                return messages
            if minutes:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.rung.wait(), minutes * 60)
                if self.rung.is_set() or self._workers_busy():
                    continue
            self.status.set(state="done")  # under its lock: a message from now is refused,
            return mail.take(self.path)  # and one sent before is read

    def _workers_busy(self) -> bool:
        """A session it started still works (or waits for someone): its answer will come."""
        mine = str(self.path)
        return any(
            r.data.get("parent") == mine and r.state in registry.LIVE and r.state != "idle"
            for r in registry.records()
        )
