"""The short /help: the commands most sessions use and the keys that matter, one screen at
80x24 with the live region below it; `/help all` lists every command and key."""

from __future__ import annotations

BRIEF = {  # usage -> what it does, one line each at 80 columns
    "/clear": "a new session (the old one stays resumable)",
    "/resume": "go on with an earlier session (pick one)",
    "/compact [focus]": "compact the conversation now",
    "/model [M]": "show or change the model",
    "/plan [goal]": "plan mode: read-only until you approve the plan",
    "/undo": "take the last turn back: code and conversation",
    "/rewind": "go back to an earlier turn",
    "/goal CMD": "keep working until CMD exits 0",
    "/export [FILE]": "write the conversation to a file",
    "/copy": "ask the terminal to copy the last reply",
    "/exit": "leave (Ctrl-D does too)",
}
KEYS_BRIEF = "Enter sends · Esc stops · Ctrl-O tool calls · Shift-Tab mode · F2 panel"


def brief(known: list[str]) -> tuple[dict[str, str], str, str]:
    """The short list's commands (those this chat has), its keys' line and its last line."""
    shown = {usage: text for usage, text in BRIEF.items() if usage.split()[0] in known}
    more = len(known) - len(shown)
    return shown, KEYS_BRIEF, f"/help all: every command ({more} more) and every key"
