"""Reading what a piece of evidence cites, in the ways models write it.

Locations: `a.py:3`, `a.py:3-5` (also with an en or em dash), `a.py:3:7` (a column), `a.py#L3`,
`a.py#L3-L5`, `a.py line 3`, `` `a.py` lines 3-5 ``, `a.py, line 3`, `a.py (line 3)`,
`line 3 of a.py`, `a.py L3`. A snippet beside the location is *quoted* when it sits in quotes or
backticks (`a.py:3 "def foo("`) and *loose* when it only follows a separator (`a.py:3 — def foo(`):
a loose one may be a description rather than a quote, so the checker judges it more leniently.
Commands: `pytest -q → 3 passed` (also ->, =>), `` `make` (exit 0) ``, `$ ruff check: clean`.
An item written as a JSON object (`{"file": "a.py", "line": 3, "text": "def foo("}`) is read by
its keys. Anything else is text: a data point no code can check. A bare path (`a.py defines foo`)
counts as a location without lines when it names an existing file, or looks like a file name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from agent_cli.core.payloads import CitationKind

# one flat class: a nested pattern here backtracks for minutes on a long run of letters
_PATH = r"[\w.~/\\+@-]+"
MAX_ITEM_CHARS = 400  # longer is no citation; the regexes never see more
_DASH = r"\s*(?:-|\u2013|\u2014|to|through|\.\.)\s*"
_LOCATIONS = (
    # a.py#L3-L5, a.py#L3
    re.compile(rf"`?(?P<path>{_PATH})`?#L(?P<a>\d+)(?:-L?(?P<b>\d+))?"),
    # a.py:3-5, a.py:3:7, `a.py:3`
    re.compile(rf"`?(?P<path>{_PATH}):(?P<a>\d+)(?:{_DASH}(?P<b>\d+)|:\d+)?\b`?"),
    # a.py line 3, `a.py` lines 3-5, a.py, line 3, a.py (line 3), a.py L3
    re.compile(
        rf"`?(?P<path>{_PATH})`?,?\s+\(?(?:lines?|ll?\.|ln)\s*(?P<a>\d+)(?:{_DASH}(?P<b>\d+))?\)?",
        re.IGNORECASE,
    ),
    re.compile(rf"`?(?P<path>{_PATH})`?\s+L(?P<a>\d+)(?:-L?(?P<b>\d+))?\b"),
    # line 3 of a.py, lines 3-5 in `a.py`
    re.compile(
        rf"\b(?:lines?|ll?\.)\s*(?P<a>\d+)(?:{_DASH}(?P<b>\d+))?\s+(?:of|in)\s+`?(?P<path>{_PATH})`?",
        re.IGNORECASE,
    ),
)
_WORDY = 2  # the patterns from here on sit among words: their path must look like one
_CODE_LIKE = re.compile(
    r"[()\[\]{}=;<>]|^(?:def|class|import|from|return|if|for|async|fn|let|const|var)\b"
)
_FILE_LIKE = re.compile(
    r"^(?:[\w.-]+/)*[\w.-]*\.(?:py|pyi|js|jsx|ts|tsx|md|rst|txt|json|toml|ya?ml|cfg|ini|lock|"
    r"rs|go|c|h|cc|cpp|hpp|java|kt|rb|php|sh|html|css|sql|xml|csv|env)$|^(?:[\w.-]+/)+[\w.-]+$"
)
_BARE_PATH = re.compile(rf"`(?P<q>{_PATH})`|(?<![\w`])(?P<p>{_PATH})")
# a quote opens after a start, space or separator and closes before an end, space or punctuation,
# so the apostrophe of "doesn't" is never taken for one
_QUOTE = re.compile(
    r"""(?:^|(?<=[\s:(\[\u2013\u2014=-]))(?:"(?P<d>[^"]+)"|“(?P<c>[^”]+)”|'(?P<s>[^']+)'|`(?P<b>[^`]+)`)"""
    r"""(?=$|[\s,.;:)\]\u2013\u2014-])"""
)
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_ARROW = re.compile(r"\s*(?:→|->|=>|⇒|⟶)\s*")
_EXIT_PAREN = re.compile(
    r"^(?P<cmd>.+?)\s*[(\[,:]\s*(?P<out>(?:exit|rc|return)[^)\]]*)[)\]]?$", re.IGNORECASE
)
_RAN = re.compile(r"^(?:ran|running|run|executed|bash)\s*:?\s+", re.IGNORECASE)
_DASHES = ("-", "\u2013", "\u2014")
_SEPARATORS = " \t:|,;=>" + "".join(_DASHES)


@dataclass(frozen=True)
class Citation:
    kind: CitationKind
    path: str = ""
    start: int | None = None  # 1-based; None: the file itself
    end: int | None = None
    snippet: str = ""
    quoted: bool = False  # the snippet was in quotes: it must match
    command: str = ""
    outcome: str = ""


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "`'\"":
        return text[1:-1].strip()
    return text


def _snippet(before: str, after: str) -> tuple[str, bool]:
    """The snippet cited beside a location, and whether it must match the line."""
    if match := _QUOTE.search(after) or _QUOTE.search(before):
        return next(g for g in match.groups() if g is not None), True
    text = after.strip(_SEPARATORS + "`")
    # `a.py:3 — def foo(`: code right after a separator is a quote without the quotes
    separated = after.lstrip()[:1] in (*_DASHES, ":", "|")
    return text, bool(text and separated and _CODE_LIKE.search(text))


def _location(text: str) -> Citation | None:
    for number, pattern in enumerate(_LOCATIONS):
        for match in pattern.finditer(text):
            path = match.group("path").strip("`")
            if not any(ch.isalnum() for ch in path):
                continue  # "...:3" or "-:3"
            if number >= _WORDY and not ("." in path or "/" in path):
                continue  # "the line 3": a word, not a path
            start = int(match.group("a"))
            end = int(match.group("b")) if match.group("b") else start
            snippet, quoted = _snippet(text[: match.start()], text[match.end() :])
            low, high = min(start, end), max(start, end)
            return Citation("location", path, low, high, snippet, quoted)
    return None


def _command(text: str) -> Citation | None:
    stripped = text.strip()
    parts = _ARROW.split(stripped, maxsplit=1)
    if len(parts) == 2:
        command, outcome = parts
    elif match := _EXIT_PAREN.match(stripped):
        command, outcome = match.group("cmd"), match.group("out")
    elif stripped.startswith("$ "):
        command, _, outcome = stripped[2:].partition(": ")
    else:
        return None
    command = _unquote(_RAN.sub("", command.strip().removeprefix("$ ")))
    if not command:
        return None
    return Citation("command", command=command, outcome=_unquote(outcome.strip(" .")))


def _bare_path(text: str, exists: Callable[[str], bool]) -> Citation | None:
    for match in _BARE_PATH.finditer(text):
        path = (match.group("q") or match.group("p") or "").rstrip(".,;:")
        if path and (_FILE_LIKE.match(path) or ("." in path and exists(path))):
            snippet, quoted = _snippet(text[: match.start()], text[match.end() :])
            return Citation("location", path, snippet=snippet if quoted else "", quoted=quoted)
    return None


def _first(data: dict[str, Any], *keys: str) -> Any:
    return next((data[k] for k in keys if data.get(k) not in (None, "")), None)


def _from_object(text: str) -> Citation | None:
    """An item written as an object: {"file": "a.py", "line": 3, "text": "def foo("}."""
    try:
        data = json.loads(text) if text.lstrip().startswith("{") else None
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    command = _first(data, "command", "cmd")
    if isinstance(command, str):
        outcome = _first(data, "outcome", "result", "output", "exit_code", "exit")
        said = f"exit {outcome}" if isinstance(outcome, int) else str(outcome or "")
        return Citation("command", command=command, outcome=said)
    path = _first(data, "path", "file", "filename")
    if not isinstance(path, str):
        return None
    lines = _first(data, "lines", "line", "start", "line_start")
    end = _first(data, "end", "line_end")
    ref = path if lines is None else f"{path}:{lines}" + ("" if end is None else f"-{end}")
    cited = _location(ref) or Citation("location", path)
    snippet = _first(data, "text", "quote", "snippet", "code", "content")
    return replace(cited, snippet=str(snippet), quoted=True) if snippet is not None else cited


def parse(text: str, exists: Callable[[str], bool] = lambda _path: False) -> Citation:
    """What `text` cites; `exists` says whether a bare word names a file of the workspace."""
    text = text[:MAX_ITEM_CHARS]
    if cited := _from_object(text):
        return cited
    text = _URL.sub(" ", text)  # a web address is not a workspace path
    return (
        _location(text)
        or _command(text)
        or _bare_path(text, exists)
        or Citation("text", snippet=text.strip())
    )
