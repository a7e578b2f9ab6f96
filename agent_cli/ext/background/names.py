"""A background session's name: short and memorable, given (`--name`) or made from the prompt's
first words that say something ("fix the login bug in auth.py" -> `fix-login-bug`), and
unique in its workspace (`fix-login-bug-2` for the next one)."""

from __future__ import annotations

import re
from collections.abc import Container

from agent_cli.core.errors import UsageError

VALID = re.compile(r"[a-z0-9][a-z0-9._-]{0,39}")
WORDS = 3
WORD_CHARS = 12
FALLBACK = "session"
_FILLER = """a an the and or but of to in on at for from with by into onto about as is are be
been it its this that these those there here please can could would should will you your me my
we our us i let lets just some any all then so do does did make sure"""
FILLER = frozenset(_FILLER.split())


def from_prompt(prompt: str) -> str:
    """Up to three of the prompt's words, lower-cased, filler left out."""
    words = re.findall(r"[a-z0-9]+", prompt.lower())
    kept = [w[:WORD_CHARS] for w in words if w not in FILLER]
    return "-".join(kept[:WORDS]) or FALLBACK


def checked(name: str) -> str:
    """A name given with --name, or UsageError (exit 2) naming the flag."""
    if not VALID.fullmatch(name):
        raise UsageError(
            f"--name: {name!r} is not a session name: use 1-40 of a-z 0-9 . _ -, "
            "starting with a letter or digit"
        )
    return name


def unique(wanted: str, taken: Container[str]) -> str:
    """`wanted`, else `wanted-2`, `wanted-3` ... whichever is free."""
    if wanted not in taken:
        return wanted
    n = 2
    while f"{wanted}-{n}" in taken:
        n += 1
    return f"{wanted}-{n}"
