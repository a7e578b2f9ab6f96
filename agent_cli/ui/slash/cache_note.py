"""The one line a chat command says when what it changes sits in the cached prefix (model,
system prompt, tools): the next request writes the prompt cache again instead of reading it."""

from __future__ import annotations

STYLE = "yellow"


def rewrite_note(what: str) -> str:
    return (
        f"Note: {what} changes the cached prompt prefix; the next request writes the prompt cache "
        "again (billed as cache writes, not reads)."
    )
