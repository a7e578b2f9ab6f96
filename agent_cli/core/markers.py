"""Texts the agent puts into the conversation as if the user had written them. Kept apart
from core/history.py (which re-exports them) so a listing can tell them from a typed prompt
with the standard library alone."""

from __future__ import annotations

import re

INTERRUPTED = "interrupted by user: the tool did not finish"
USER_INTERRUPTED = "[The user interrupted this reply. Do not continue it unless asked.]"
SHELL_HEAD = "I ran `{command}` in the shell:"  # then the output: a user's `!command`
ATTACHED = "Contents of @{path}:"  # then the file: a prompt's `@path`

SHELL = re.compile(re.escape(SHELL_HEAD).replace(r"\{command\}", "(.*?)") + "\n?", re.S)
ATTACHED_RE = re.compile(re.escape(ATTACHED).replace(r"\{path\}", "(.+?)") + "\n?")


def typed_prompt(text: str) -> str | None:
    """What the user typed, as they would recognise it: `!command` for a shell command they
    ran, None for a text the agent wrote (an interrupt's marker, an attached file)."""
    if text == USER_INTERRUPTED or ATTACHED_RE.match(text):
        return None
    if ran := SHELL.match(text):
        return f"!{ran.group(1)}"
    return text
