"""Escape sequences the screen can show whole. prompt_toolkit's ANSI parser knows only SGR
colours: an OSC (a hyperlink, `ESC ] 8 ; ; url ESC \\`) loses its `ESC ]` and is drawn as text
(`8;id=…;https://…`). So the live area gets its OSCs removed, and links are real hyperlinks
only in terminals known to draw them; elsewhere a link reads `text (url)`."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import cache

CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # all but tab and newline
OSC = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
# terminals that draw OSC 8 links (and say so in their environment); tmux and screen pass
# them on only when configured to, so inside them links are spelled out
LINK_PROGRAMS = frozenset({"iTerm.app", "WezTerm", "vscode", "ghostty", "Hyper", "Tabby"})
LINK_TERMS = ("xterm-kitty", "foot", "xterm-ghostty", "wezterm")
VTE_LINKS = 5000  # VTE (GNOME Terminal, Tilix, …) draws them from 0.50


def printable(text: str) -> str:
    """Text from the model or a tool with its control characters taken out: an ESC in a reply
    must not move the cursor, clear the screen or open a link."""
    return CONTROLS.sub("", text)


def without_osc(text: str) -> str:
    """`text` with every OSC sequence taken out (what it wraps stays)."""
    return OSC.sub("", text) if "\x1b]" in text else text


def links_known(env: Mapping[str, str]) -> bool:
    """The terminal is known to draw OSC 8 hyperlinks (AGENT_HYPERLINKS=1/0 says so outright)."""
    forced = env.get("AGENT_HYPERLINKS")
    if forced in ("0", "1"):
        return forced == "1"
    if env.get("TMUX") or env.get("TERM", "").startswith(("screen", "tmux")):
        return False
    vte = env.get("VTE_VERSION", "")
    return (
        env.get("TERM_PROGRAM", "") in LINK_PROGRAMS
        or env.get("TERM", "").startswith(LINK_TERMS)
        or bool(env.get("KITTY_WINDOW_ID") or env.get("WT_SESSION"))
        or (vte.isdigit() and int(vte) >= VTE_LINKS)
    )


@cache
def terminal_links() -> bool:
    return links_known(os.environ)
