"""Drive the real `agent chat` in a pseudo-terminal and read what a person would see.

pexpect runs the process; pyte plays the terminal (it also answers the cursor-position requests
prompt_toolkit sends, as a real terminal does).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import pexpect
import pyte

from tests.e2e.helpers import REPO

ENTER = "\r"  # what the Enter key sends in raw mode (\n is Ctrl-J: a new line in the input)
CTRL_C = "\x03"
CTRL_D = "\x04"
FRAME_BEGIN, FRAME_END = b"\x1b[?2026h", b"\x1b[?2026l"  # synchronized output (DEC mode 2026)


class _Screen(pyte.Screen):
    def __init__(self, columns: int, lines: int, reply: Callable[[str], None]) -> None:
        super().__init__(columns, lines)
        self._reply = reply

    def write_process_input(self, data: str) -> None:
        self._reply(data)


class _HistoryScreen(pyte.HistoryScreen):
    """The same, keeping what scrolls off the top (the terminal's scrollback)."""

    def __init__(self, columns: int, lines: int, reply: Callable[[str], None]) -> None:
        super().__init__(columns, lines, history=5000, ratio=0.5)
        self._reply = reply

    def write_process_input(self, data: str) -> None:
        self._reply(data)


BUSY = ("working…", "answer the question above", "pick one above", "type your answer")


class ChatTerm:
    def __init__(
        self,
        env: dict[str, str],
        workspace: Path,
        *args: str,
        columns: int = 140,
        lines: int = 40,
        scrollback: bool = False,
        command: str = "chat",
    ) -> None:
        # pyte cuts rows on a resize where most terminals re-wrap them
        env = {**env, "PYTHONPATH": str(REPO), "TERM": "xterm-256color", "AGENT_REFLOW": "0"}
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "agent_cli", command, *args],
            cwd=str(workspace),
            env=env,
            dimensions=(lines, columns),
            encoding=None,
        )
        kind = _HistoryScreen if scrollback else _Screen
        self.screen: pyte.Screen = kind(columns, lines, self._reply)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = b""

    def _reply(self, data: str) -> None:
        if self.child.isalive():
            self.child.send(data.encode())

    def pump(self, seconds: float = 0.05) -> None:
        try:
            data = self.child.read_nonblocking(65536, timeout=seconds)
        except pexpect.TIMEOUT:
            return
        except pexpect.EOF:
            time.sleep(seconds)
            return
        self.raw += data
        self.stream.feed(data)

    def resize(self, columns: int, lines: int) -> None:
        """The window changes size: the terminal first, then the program is told (SIGWINCH)."""
        self.screen.resize(lines, columns)
        self.child.setwinsize(lines, columns)

    def scrollback(self) -> list[str]:
        """Every line a person could scroll through: what scrolled off the top, then the screen."""
        history = getattr(self.screen, "history", None)
        top = list(history.top) if history is not None else []
        old = [
            "".join(row[x].data for x in range(max(row, default=-1) + 1)).rstrip() for row in top
        ]
        return old + [line.rstrip() for line in self.screen.display]

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display).rstrip("\n")

    def wait_for(self, what: str | Callable[[str], bool], timeout: float = 30) -> str:
        check = what if callable(what) else (lambda text: what in text)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.pump()
            if not self.mid_frame() and check(self.text()):
                return self.text()
        raise AssertionError(f"screen never showed {what!r}; it shows:\n{self.text()}")

    def mid_frame(self) -> bool:
        """A frame begun and not yet ended: a terminal with synchronized output still shows the
        one before, so a person never sees this half-drawn screen."""
        begin = self.raw.rfind(FRAME_BEGIN)
        return begin != -1 and self.raw.find(FRAME_END, begin) == -1

    def send(self, text: str) -> None:
        self.child.send(text.encode())

    def type(self, text: str) -> None:
        """Type a line and press Enter."""
        self.send(text)
        self.pump()
        self.send(ENTER)

    def prompt_line(self) -> str:
        return next(
            (line.rstrip() for line in reversed(self.screen.display) if line.startswith("you>")),
            "",
        )

    def wait_idle(self, timeout: float = 30) -> str:
        """Until no turn is running (the status bar no longer says so) and no question waits
        (while one does, the status bar says that instead of "working…")."""
        return self.wait_for(lambda t: "you>" in t and not any(busy in t for busy in BUSY), timeout)

    def finish(self, timeout: float = 30) -> str:
        """Wait for the process to end; the whole output as plain text."""
        deadline = time.monotonic() + timeout
        while self.child.isalive() and time.monotonic() < deadline:
            self.pump()
        self.pump()
        self.child.close(force=True)
        return self.raw.decode("utf-8", "replace")

    def close(self) -> None:
        if self.child.isalive():
            self.child.close(force=True)
