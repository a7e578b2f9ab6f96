"""What the chat screen offers the daily commands beyond text: the system clipboard through the
terminal (OSC 52, /copy), vi editing of the input (/vim, the `vim_mode` setting), and the
prompt written in $EDITOR (Ctrl-G, bound in ui/input/keys.py). Imports only prompt_toolkit."""

from __future__ import annotations

import base64
import os

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.enums import EditingMode

# what terminals take in one OSC 52 sequence varies (xterm: about 100 kB); past this it is refused
MAX_CLIPBOARD_BYTES = 1_000_000


def osc52(text: str, tmux: bool = False) -> str:
    """The sequence that puts `text` on the system clipboard ("c"), terminated by BEL. Inside
    tmux it goes twice: as it is (taken with `set-clipboard on`) and wrapped to pass through
    to the outer terminal (with `allow-passthrough on`); tmux drops what it is not set for."""
    encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
    plain = f"\x1b]52;c;{encoded}\x07"
    if not tmux:
        return plain
    return plain + "\x1bPtmux;" + plain.replace("\x1b", "\x1b\x1b") + "\x1b\\"


class ScreenTerminal:
    """The port the slash commands reach the screen's terminal through (Host.terminal)."""

    def __init__(self, app: Application[None], buffer: Buffer, vim: bool = False) -> None:
        self.app, self.buffer = app, buffer
        buffer.tempfile_suffix = ".md"  # an editor opened with Ctrl-G highlights Markdown
        self.set_vim(vim)

    @property
    def in_tmux(self) -> bool:
        """Inside tmux, whose `set-clipboard` option decides what becomes of OSC 52."""
        return bool(os.environ.get("TMUX"))

    def copy(self, text: str) -> str | None:
        """Ask the terminal to put `text` on the clipboard (whether it does, no terminal says);
        None, or why it was not asked."""
        sequence = osc52(text, tmux=self.in_tmux)
        if len(sequence) > MAX_CLIPBOARD_BYTES:
            return f"the reply is too long for the terminal's clipboard ({len(text):,} chars)"
        self.app.output.write_raw(sequence)
        self.app.output.flush()
        return None

    @property
    def vim(self) -> bool:
        return self.app.editing_mode == EditingMode.VI

    def set_vim(self, on: bool) -> None:
        self.app.editing_mode = EditingMode.VI if on else EditingMode.EMACS
        self.app.invalidate()
