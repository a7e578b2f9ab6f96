"""Redaction of text that arrives in pieces (a reply's streamed deltas).

Masking each piece alone lets a secret split across two of them through, whole once a reader
joins them. `StreamRedactor` holds back the end of the text so far while it could still be the
start of a secret (or of one of its encoded forms) and lets it go once it cannot: the pieces it
returns, joined, are exactly `redact()` of the whole text, and no prefix of them holds a form.

A `cut()` ends a stream (a block, a reply, a restarted reply). A reader may still join what
comes after it to what came before, so the next stream is watched for completing a secret the
shown text ended with; what would complete one is shown as the mask.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_cli.core.text.redaction import MASK, forms, redact


class StreamRedactor:
    def __init__(self, secrets: Iterable[str]) -> None:
        self._secrets = tuple(secrets)
        self._forms = forms(self._secrets)
        self._reach = max(map(len, self._forms), default=1) - 1  # a held tail is shorter
        self._pending = ""  # text not shown yet, after `_shown` characters already shown
        self._shown = 0  # the shown end of the previous stream, which this one may complete
        self._tail = ""  # the end of everything shown, as far back as a form could reach

    def feed(self, text: str) -> str:
        """What of the text so far can be shown now ("" while it all could be a secret)."""
        if not self._forms:
            return text
        self._pending += text
        return self._release(final=False)

    def cut(self) -> str:
        """The end of a stream: the rest of its text, redacted."""
        if not self._forms:
            return ""
        out = self._release(final=True)
        self._carry()
        return out

    def drop(self) -> str:
        """The end of a stream whose held text is not shown (the user stopped it): that text,
        redacted, for the history to keep."""
        held = redact(self._pending[self._shown :], self._secrets)
        self._carry()
        return held

    def _carry(self) -> None:
        self._pending = self._tail[_open_start(self._tail, self._forms) :]
        self._shown = len(self._pending)

    def _release(self, final: bool) -> str:
        text, shown = self._pending, self._shown
        start = len(text) if final else _open_start(text, self._forms)
        out = ""
        if shown:
            ends = [e for s, e in _spans(text, self._forms) if s < shown < e]
            if ends:  # the shown text ended with the start of a form: this completes it
                out, self._pending = MASK, text[max(ends) :]
            elif start < shown:  # it still could
                return ""
            else:
                self._pending = text[shown:]
            self._shown = 0
            start = len(self._pending) if final else _open_start(self._pending, self._forms)
        out += self._clean_part(start)
        self._tail = (self._tail + out)[-self._reach :] if self._reach else ""
        return out

    def _clean_part(self, start: int) -> str:
        """Redacted text up to `start` or before it, cut where no form crosses the cut: the
        parts then redact as the whole does."""
        text, cut = self._pending, start
        spans = _spans(text, self._forms)
        while crossing := [s for s, e in spans if s < cut < e]:
            cut = min(crossing)
        self._pending = text[cut:]
        return redact(text[:cut], self._secrets)


def _spans(text: str, forms: tuple[str, ...]) -> list[tuple[int, int]]:
    """Every occurrence of every form, overlapping ones too, as (start, end)."""
    spans = []
    for form in forms:
        at = text.find(form)
        while at >= 0:
            spans.append((at, at + len(form)))
            at = text.find(form, at + 1)
    return spans


def _open_start(text: str, forms: tuple[str, ...]) -> int:
    """Where the longest end of `text` that is the start of a form (not all of it) begins;
    len(text) when none is."""
    best = len(text)
    for form in forms:
        at = text.find(form[0], max(0, len(text) - len(form) + 1))
        while 0 <= at < best:
            if form.startswith(text[at:]):
                best = at
                break
            at = text.find(form[0], at + 1)
    return best
