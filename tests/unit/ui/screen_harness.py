"""The chat screen on a fake terminal: everything it writes is kept, a test drives it and types
the terminal's answers into its input pipe."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable

from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input

from agent_cli.ui.screen.frames import FramedOutput
from agent_cli.ui.screen.live import ChatScreen
from agent_cli.ui.screen.width_probe import PROBE

ASK = "\x1b[6n"


class FakeTty(io.StringIO):
    def isatty(self) -> bool:  # prompt-toolkit asks a terminal for its cursor, not a file
        return True


def framed_on(
    tty: FakeTty, size: Callable[[], Size] = lambda: Size(rows=24, columns=80)
) -> FramedOutput:
    return FramedOutput(tty, size, term="xterm-256color")


def questions(written: str) -> list[bool]:
    """Each cursor question in `written`, in order: whether it is a width probe (the cursor
    sent to the last column first, ui/screen/width_probe.py) rather than a question of position."""
    return [
        written[:at].endswith(PROBE[: PROBE.index(ASK)])
        for at in range(len(written))
        if written.startswith(ASK, at)
    ]


Drive = Callable[[ChatScreen, PipeInput], Awaitable[None]]


def run_screen(output: FramedOutput, drive: Drive, timeout: float = 10) -> None:
    """Run a screen on `output` and `drive` it once its first frame is drawn; the screen exits
    when `drive` ends, and what went wrong in `drive` is raised here."""

    async def main() -> None:
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=output):
            screen = ChatScreen(None)

            async def driven() -> None:
                try:
                    await asyncio.wait_for(drive(screen, pipe), timeout)
                finally:
                    screen.exit()

            started: list[asyncio.Future[None]] = []
            await screen.run(lambda: started.append(asyncio.ensure_future(driven())))
            started[0].result()

    asyncio.run(main())
