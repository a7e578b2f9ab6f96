"""A cheap fingerprint of a request, part by part in the order the prompt cache reads it
(model, each tool's schema, the system prompt's sections, the history as a prefix), and the
cause of a call that wrote more cache than it read: the first part that differs from the same
agent's previous request, or the time since it when nothing differs.

Parts are hashed, never dumped whole per call: a message, a tool schema and a system text are
never changed in place (stages build copies), so each one's hash is kept by identity, as
context/tokens.py keeps sizes; a round hashes only what is new."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from agent_cli.core.history import SameItems
from agent_cli.model.client import ModelRequest

_MEMO: dict[int, tuple[object, str]] = {}
_MEMO_LIMIT = 2048


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def _hash(value: object) -> str:
    hit = _MEMO.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    digest = _digest(text)
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[id(value)] = (value, digest)  # holding the value keeps its id from being reused
    return digest


def _sections(text: str) -> list[tuple[str, str]]:
    """The system text cut at its top-level headings: (heading, that section's text)."""
    out: list[tuple[str, str]] = []
    name, start = "prompt", 0
    at = text.find("\n# ")
    while at != -1:
        out.append((name, text[start:at]))
        end = text.find("\n", at + 1)
        name = text[at + 3 : end if end != -1 else len(text)].strip().lower()
        start = at + 1
        at = text.find("\n# ", start)
    out.append((name, text[start:]))
    return out


_SECTIONS: dict[int, tuple[str, list[tuple[str, str]]]] = {}


def _system(blocks: list[dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    parts: list[tuple[str, str]] = []
    for block in blocks:
        text = block.get("text")
        if not isinstance(text, str):
            parts.append(("block", _hash(block)))
            continue
        hit = _SECTIONS.get(id(text))
        if hit is None or hit[0] is not text:
            if len(_SECTIONS) >= 64:
                _SECTIONS.clear()
            hit = (text, [(n, _digest(s)) for n, s in _sections(text)])
            _SECTIONS[id(text)] = hit
        parts += hit[1]
    return tuple(parts)


# the running hash after a message, kept by the message's identity and the hash before it: a
# round's history is the last one's plus a message or two, so only those are hashed
_RUNNING: dict[int, tuple[object, str, str]] = {}


def _running(before: str, message: object) -> str:
    hit = _RUNNING.get(id(message))
    if hit is not None and hit[0] is message and hit[1] == before:
        return hit[2]
    after = _digest(before + _hash(message))
    if len(_RUNNING) >= _MEMO_LIMIT:
        _RUNNING.clear()
    _RUNNING[id(message)] = (message, before, after)
    return after


@dataclass(frozen=True)
class Fingerprint:
    """One request's parts; `history` is the running hash after each message."""

    model: str
    tools: tuple[tuple[str, str], ...] = ()
    system: tuple[tuple[str, str], ...] = ()
    history: tuple[str, ...] = field(default=(), repr=False)
    messages: int = 0  # len(history), also when only the newest hash is kept (stored())

    def stored(self) -> dict[str, Any]:
        """What a transcript keeps to judge the next call after a resume."""
        last = self.history[-1] if self.history else ""
        return {
            "model": self.model,
            "tools": [list(t) for t in self.tools],
            "system": [list(s) for s in self.system],
            "history": [self.messages, last],
        }

    @classmethod
    def from_stored(cls, raw: dict[str, Any]) -> Fingerprint:
        count, last = raw.get("history") or [0, ""]
        return cls(
            model=str(raw.get("model", "")),
            tools=tuple((str(n), str(h)) for n, h in raw.get("tools") or []),
            system=tuple((str(n), str(h)) for n, h in raw.get("system") or []),
            history=(str(last),) if count else (),
            messages=int(count),
        )


# the newest history fingerprinted and its running hashes: the next request's history is
# this one plus a message or two, found so in one list comparison instead of a lookup a message
_LAST: tuple[list[object], list[str]] = ([], [])


def _history(messages: list[Any]) -> list[str]:
    global _LAST
    held, hashes = _LAST
    common = min(len(messages), len(held))
    if messages[:common] != held[:common]:  # another caller's history, or a rewritten one
        common = 0
    history = hashes[:common]
    running = history[-1] if history else ""
    for message in messages[common:]:
        running = _running(running, message)
        history.append(running)
    if len(messages) >= len(held) or common < len(messages):
        _LAST = (list(messages), history)
    return history


# each tool's name and hash: the same schemas every round
_TOOLS: SameItems[tuple[tuple[str, str], ...]] = SameItems(
    lambda tools: tuple((str(t.get("name", "")), _hash(t)) for t in tools)
)


def fingerprint(request: ModelRequest) -> Fingerprint:
    tools = _TOOLS.of(request.tools)
    history = _history(request.messages)
    return Fingerprint(request.model, tools, _system(request.system), tuple(history), len(history))


def _changed(before: tuple[tuple[str, str], ...], after: tuple[tuple[str, str], ...]) -> str:
    """Which named parts were added, removed or changed (the first of each kind, in order)."""
    old, new = dict(before), dict(after)
    added = [n for n in new if n not in old]
    removed = [n for n in old if n not in new]
    changed = [n for n in new if n in old and old[n] != new[n]]
    said = [f"{word} {', '.join(names)}" for word, names in (
        ("added", added), ("removed", removed), ("changed", changed)) if names]  # fmt: skip
    return "; ".join(said) or "reordered"


def miss_cause(
    before: Fingerprint | None, now: Fingerprint, gap_s: float | None, ttl_s: float
) -> tuple[str, str] | None:
    """(cause, detail) of a call that wrote more cache than it read; None when its prefix is
    the previous request's and within the TTL (what it wrote is new, not a miss)."""
    if before is None:
        return "first", ""
    if before.model != now.model:
        return "model", f"{before.model} -> {now.model}"
    if before.tools != now.tools:
        return "tools", _changed(before.tools, now.tools)
    if before.system != now.system:
        return "system", _changed(before.system, now.system)
    n = before.messages
    if n and (now.messages < n or now.history[n - 1] != before.history[-1]):
        if now.messages < n:
            return "history", f"{n} messages became {now.messages} (compaction, snip or rewind)"
        return "history", f"an earlier message of {n} changed (compaction, snip, rewind or edit)"
    if gap_s is not None and gap_s > ttl_s:
        return "expired", f"{gap_s:.0f} s since the previous call (TTL {ttl_s:.0f} s)"
    return None
