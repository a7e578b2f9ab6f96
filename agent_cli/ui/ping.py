"""The ping when the agent needs the user (a long turn ended, an approval or question waits):
BEL, and the desktop-notification escape the terminal understands, wrapped for tmux.

- OSC 9 (iTerm2, WezTerm, Ghostty, Windows Terminal, and the default): ESC ] 9 ; text BEL
- OSC 777 (urxvt, foot, VTE terminals such as GNOME Terminal): ESC ] 777 ; notify ; title ; text BEL
- OSC 99 (kitty): ESC ] 99 ; ; text ESC \\
Inside tmux the escape is passed through (ESC P tmux; ... ESC \\ with every ESC doubled); BEL
stays outside, so tmux marks the window as well.
"""

from __future__ import annotations

from collections.abc import Mapping

BEL = "\a"
TITLE = "agent"
MAX_TEXT = 200


def clean(text: str) -> str:
    """No control characters (an ESC in the message would end the escape early), one line."""
    flat = " ".join(text.split())
    kept = "".join(c for c in flat if c.isprintable() and c != ";")
    return kept[:MAX_TEXT]


def osc_kind(env: Mapping[str, str]) -> str:
    term = env.get("TERM", "").lower()
    if "kitty" in term or "KITTY_WINDOW_ID" in env:
        return "99"
    if "rxvt" in term or term.startswith("foot") or "VTE_VERSION" in env:
        return "777"
    return "9"  # iTerm2, WezTerm, Ghostty, Windows Terminal; others ignore it


def osc(text: str, kind: str) -> str:
    if kind == "99":
        return f"\x1b]99;;{text}\x1b\\"
    if kind == "777":
        return f"\x1b]777;notify;{TITLE};{text}\a"
    return f"\x1b]9;{text}\a"


def tmux_wrap(sequence: str) -> str:
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"


def ping_bytes(message: str, env: Mapping[str, str], *, bell: bool, notify: bool) -> str:
    """What to write to the terminal; "" when both are off."""
    out = BEL if bell else ""
    if notify:
        sequence = osc(clean(message), osc_kind(env))
        out += tmux_wrap(sequence) if env.get("TMUX") else sequence
    return out
