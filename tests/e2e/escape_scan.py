"""Every byte a program wrote to its terminal, read as ECMA-48 does: text, or a whole escape
sequence (CSI, OSC/DCS/APC/PM up to their terminator, or a short ESC sequence). What is left
broken (an ESC that starts no whole sequence) is reported, and so is a hyperlink's body drawn as
text (`8;id=…`, a lone `]8;`): what the screen shows when a parser dropped the `ESC ]`."""

from __future__ import annotations

import re

CSI = re.compile(r"\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]")
STRING = re.compile(r"\x1b[\]P_^][^\x1b\x07]*(?:\x07|\x1b\\)")  # OSC, DCS, APC, PM
SHORT = re.compile(r"\x1b[\x20-\x2f]*[\x30-\x7e]")
LEAKED = re.compile(r"8;id=|\]8;")


def scan(data: str) -> tuple[str, list[str]]:
    """(the text outside escape sequences, the broken sequences found: 20 characters each)."""
    text: list[str] = []
    broken: list[str] = []
    at = 0
    while (esc := data.find("\x1b", at)) != -1:
        text.append(data[at:esc])
        kind = data[esc + 1 : esc + 2]
        pattern = CSI if kind == "[" else STRING if kind in "]P_^" and kind else SHORT
        found = pattern.match(data, esc)
        if found is None:
            broken.append(data[esc : esc + 20])
            at = esc + 1
        else:
            at = found.end()
    text.append(data[at:])
    return "".join(text), broken


def leaks(text: str) -> list[str]:
    """Pieces of an escape sequence shown as text."""
    return [text[max(m.start() - 10, 0) : m.end() + 20] for m in LEAKED.finditer(text)]
