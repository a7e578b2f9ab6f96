"""One reader for Markdown files with `---` front matter, as real project files write them.

A real YAML parser in safe mode reads the front matter first. About one real file in ten has
front matter strict YAML rejects (one-line descriptions full of `: ` and `<example>`, or
`argument-hint: [a] [b]`) that Claude Code still loads, so a line-based `key: value` reading
takes over when YAML fails. A BOM and CRLF line endings are dropped before either runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*)\s*:(?:\s+(.*)|\s*)$")
_LIST_ITEM = re.compile(r"^\s*-\s+(.*)$")


@dataclass
class FrontMatter:
    data: dict[str, Any]
    body: str
    has_front_matter: bool = False
    # the YAML error's first line when the line-based reading had to take over
    yaml_error: str | None = None
    problems: list[str] = field(default_factory=list)


def normalise(text: str) -> str:
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def split(text: str) -> tuple[str | None, str]:
    """(front matter text or None, body)."""
    if not text.startswith("---"):
        return None, text
    first, _, rest = text.partition("\n")
    if first.strip() != "---":
        return None, text
    lines = rest.split("\n")
    for i, line in enumerate(lines):
        if line.rstrip() in ("---", "..."):
            return "\n".join(lines[:i]), "\n".join(lines[i + 1 :])
    return None, text  # never closed: the whole file is body


def parse(text: str) -> FrontMatter:
    text = normalise(text)
    head, body = split(text)
    if head is None:
        return FrontMatter({}, body)
    import yaml  # only once a file has front matter: a workspace without any never pays

    try:
        loaded = yaml.safe_load(head) if head.strip() else {}
    except yaml.YAMLError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return FrontMatter(line_based(head), body, True, yaml_error=first)
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        return FrontMatter(line_based(head), body, True, yaml_error="not a mapping")
    return FrontMatter({str(k): v for k, v in loaded.items()}, body, True)


def line_based(head: str) -> dict[str, Any]:
    """`key: value` lines at the left margin; indented lines continue the value before them
    (a `- item` list, a `|`/`>` block or a wrapped scalar). Values stay strings or lists."""
    data: dict[str, Any] = {}
    key: str | None = None
    for line in head.split("\n"):
        if not line.strip() or (line.lstrip().startswith("#") and not line.startswith(" ")):
            continue
        match = _KEY_LINE.match(line) if not line[0].isspace() else None
        if match:
            key = match.group(1)
            value = (match.group(2) or "").strip()
            data[key] = "" if value in ("|", ">", "|-", ">-", "|+", ">+") else _unquote(value)
            continue
        if key is None:
            continue
        data[key] = _continue(data[key], line)
    return data


def _continue(current: Any, line: str) -> Any:
    item = _LIST_ITEM.match(line)
    if item and (current == "" or isinstance(current, list)):
        items = current if isinstance(current, list) else []
        return [*items, _unquote(item.group(1).strip())]
    if isinstance(current, list):
        return current
    text = line.strip()
    return f"{current} {text}".strip() if current else text


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value
