"""A block the live area showed, committed as the turn ends (issue 56), takes the rows the live
area gives up. It was written into rows opened above the region, which then got shorter and was
kept on the screen's last rows by a blank line inserted at the screen's top: a blank row amid the
conversation, inside a code block when one straddled the screen's top (the last reply's in the
tmux tests, whenever its last paragraph was drawn before the turn ended: on a loaded machine; with
a real model, which streams slower, nearly always). The screen runs on a terminal emulator that
answers its cursor questions, so the region is moved down to the last rows as on a terminal."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pyte
import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input

from agent_cli.core.events import Event, TextDelta, TurnEnd
from agent_cli.ui.screen.live import ChatScreen
from agent_cli.ui.turn import TurnView
from tests.unit.ui.screen_harness import FakeTty, framed_on
from tests.unit.ui.test_chat_screen import FakeController
from tests.waiting import until

COLUMNS, ROWS = 80, 24
CODE = [f"k_{n} = {n}  # line {n} of the code" for n in range(1, 7)]
PARAGRAPHS = [f"P{n:02d} paragraph {n}" for n in range(1, 17)]
# at 80x24 the screen's top row falls between the code's 2nd and 3rd lines as the turn ends
REPLY = "\n\n".join([*PARAGRAPHS[:8], "```\n" + "\n".join(CODE) + "\n```", *PARAGRAPHS[8:]])


class EmulatedScreen(pyte.HistoryScreen):
    """pyte keeping its scrollback, its answers to cursor questions typed into `reply`."""

    def __init__(self, reply: Callable[[str], None]) -> None:
        super().__init__(COLUMNS, ROWS, history=1000, ratio=0.5)
        self.reply = reply

    def write_process_input(self, data: str) -> None:
        self.reply(data)

    def rows(self) -> list[str]:
        """Scrollback, then the screen: each row without its trailing blanks."""
        top = ["".join(row[x].data for x in range(COLUMNS)) for row in self.history.top]
        return [row.rstrip() for row in [*top, *self.display]]


class EmulatedTty(FakeTty):
    """What the screen writes is played on the emulator at once."""

    def __init__(self, screen: EmulatedScreen) -> None:
        super().__init__()
        self.stream = pyte.Stream(screen)

    def write(self, data: str) -> int:
        self.stream.feed(data)
        return len(data)


class StreamingRepl(FakeController):
    """The REPL's part: a turn's view, its live area shown, its commits written above."""

    busy = True

    def __init__(self, screen: ChatScreen) -> None:
        super().__init__()
        self.screen, self.view = screen, TurnView(width=COLUMNS, color=False)

    def live(self, width: int) -> str:
        return self.view.live(width)

    def feed(self, event: Event) -> None:
        for text in self.view.feed(event):
            self.screen.commit(text)
        self.screen.invalidate()


async def stream(screen: ChatScreen, terminal: EmulatedScreen) -> list[str]:
    """REPLY streamed, its last paragraph drawn in the live area, then the turn's end; the
    terminal's rows once that is on screen."""
    await until(lambda: screen.anchor.anchored, 5, "the region moved to the last rows")
    repl = StreamingRepl(screen)
    screen.attach(repl)
    repl.feed(TextDelta(text=REPLY))
    await until(lambda: PARAGRAPHS[-1] in terminal.display[-3], 5, "the last paragraph live")
    repl.feed(TurnEnd(stop="done", text=REPLY, rounds=1))
    repl.busy = False
    await screen.flush()
    drawn = screen.app.render_counter
    await until(lambda: screen.app.render_counter > drawn, 5, "a frame after the commit")
    return terminal.rows()


def streamed_rows() -> list[str]:
    async def main() -> list[str]:
        with create_pipe_input() as pipe:
            terminal = EmulatedScreen(pipe.send_text)
            output = framed_on(EmulatedTty(terminal), lambda: Size(rows=ROWS, columns=COLUMNS))
            with create_app_session(input=pipe, output=output):
                screen = ChatScreen(None)
                driven: list[asyncio.Future[list[str]]] = []

                async def drive() -> list[str]:
                    try:  # the rows as the session left them, not as it leaves the terminal
                        return await asyncio.wait_for(stream(screen, terminal), 10)
                    finally:
                        screen.exit()

                await screen.run(lambda: driven.append(asyncio.ensure_future(drive())))
                return driven[0].result()

    return asyncio.run(main())


def test_a_block_drawn_live_and_then_committed_leaves_no_blank_row_in_the_reply(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv("AGENT_REFLOW", "1")  # the region kept on the last rows, as in tmux
    rows = streamed_rows()
    first, last = rows.index(PARAGRAPHS[0]), rows.index(PARAGRAPHS[-1])
    code = "\n".join(f"    {line}" for line in CODE)  # plain text: indented, no fence
    expected = "\n\n".join([*PARAGRAPHS[:8], code, *PARAGRAPHS[8:]]).split("\n")
    assert rows[first : last + 1] == expected, "\n".join(rows)
