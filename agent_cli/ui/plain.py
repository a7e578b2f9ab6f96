"""`agent chat` without a terminal: one message (or slash command) per input line, plain text
out, the panel's changes as plain lines. No questions can be asked: approvals are denied.

The reply is markdown rendered as readable plain text (no `**`, tables aligned), one finished
block at a time, as the screen does under NO_COLOR. (`agent run` prints the model's text as it
came: a script reads that.)"""

from __future__ import annotations

import asyncio
import sys

from agent_cli.core.events import Event, TextDelta, TodosUpdated, ToolEnd, ToolStart, TurnEnd
from agent_cli.core.options import Options
from agent_cli.policy.approval import HeadlessApprover
from agent_cli.runtime.runtime import Runtime, preload_sdk
from agent_cli.tools.shell.confined import notice_of
from agent_cli.ui.core import ChatCore
from agent_cli.ui.render import render
from agent_cli.ui.screen.side_panel import todo_counts, todo_lines

WIDTH = 100


class PlainRepl(ChatCore):
    def __init__(self, runtime: Runtime) -> None:
        super().__init__(runtime)
        self._done = False
        self._mid_line = False
        self._text = ""  # the reply's unfinished markdown block
        self._gap = False  # a block of this reply was printed: the next one after a blank line

    def say(self, text: str, style: str = "") -> None:
        self._write(("\n" if self._mid_line else "") + text + "\n")

    def _write(self, text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()
        self._mid_line = bool(text) and not text.endswith("\n")

    def on_event(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            self._text += event.text
            blocks, self._text = render.split_blocks(self._text)
            for block in blocks:
                self._block(block)
            return
        self._flush()
        if isinstance(event, ToolStart):
            self.say(f"… {render.tool_label(event.name, event.input)}")
        elif isinstance(event, ToolEnd):
            self.say(render.tool_end(event, WIDTH, color=False))
        elif isinstance(event, TodosUpdated):
            done, total = todo_counts(event.todos)
            lines = todo_lines(event.todos, WIDTH, color=False).plain.rstrip("\n")
            self.say(f"Todos {done}/{total}\n{lines}")
        elif isinstance(event, TurnEnd):
            if self._mid_line:
                self._write("\n")
        else:
            line = render.event_line(event, WIDTH, color=False)
            if line is not None:
                self.say(line)

    def _block(self, text: str) -> None:
        self.say(("\n" if self._gap else "") + render.markdown(text, WIDTH, color=False))
        self._gap = True

    def _flush(self) -> None:
        text, self._text = self._text, ""
        if text.strip():
            self._block(text)
        self._gap = False

    def on_idle(self) -> None:
        self._flush()

    def on_interrupt(self) -> None:
        self._flush()
        self.say("interrupted")

    def exit(self) -> None:
        self._done = True

    async def main(self) -> None:
        self.runtime.start_servers()  # no one to ask: a project's servers need `agent trust`
        try:
            while not self._done:
                line = await asyncio.to_thread(sys.stdin.readline)
                if not line:
                    break
                text = line.rstrip("\n")
                if not text.strip():
                    continue
                if text.strip().startswith("/"):
                    self.command(text.strip())  # /compact starts a task
                else:
                    self.start(self.turn(text))
                if self._task is not None:
                    await self._task
                    self._task = None
        finally:
            await self.close()
        sys.stderr.write(self.exit_message() + "\n")


def run_plain(options: Options) -> None:
    from agent_cli.runtime.build import build_runtime

    runtime = build_runtime(options, HeadlessApprover(), quiet=True)
    preload_sdk()
    repl = PlainRepl(runtime)
    if runtime.restored is not None and runtime.restored.forked:
        sys.stderr.write(f"agent: {runtime.restored.forked}\n")
    unconfined = notice_of(runtime.extension)  # auto's fallback, once
    if unconfined:
        sys.stderr.write(f"agent: {unconfined}\n")
    asyncio.run(repl.main())
