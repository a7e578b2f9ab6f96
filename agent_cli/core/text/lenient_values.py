"""The smaller liberties, on the ground floor beside `lenient_json`: a summary wrapped in a fence,
tags or a JSON object; a JSON value sent as a string; a tool input whose list fields (or the
whole input) arrive as JSON strings."""

from __future__ import annotations

import re
import types
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

from agent_cli.core.text.lenient_json import field_key, loads_strict

_OUTER_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*[ \t]*\r?\n(.*?)\n?```\s*$", re.DOTALL)
_SUMMARY_TAG = re.compile(r"^\s*<summary>\s*(.*?)\s*</summary>\s*$", re.DOTALL | re.IGNORECASE)
_LEAD_IN = re.compile(r"^\s*(here is|here's|below is)\b[^\n]{0,80}:\s*\n", re.IGNORECASE)
SUMMARY_KEYS = ("summary", "text", "content", "result")


def summary_text(text: str) -> str:
    """A summariser's reply as the summary itself: one code fence, `<summary>` tags, a JSON
    object holding it under `summary` (or text/content/result), a "Here is the summary:"
    line before it, all taken off. Prose is kept as it is; empty stays empty."""
    body = text.strip()
    for _ in range(3):  # the liberties nest: a fence around tags around JSON
        before = body
        if fenced := _OUTER_FENCE.match(body):
            body = fenced.group(1).strip()
        if tagged := _SUMMARY_TAG.match(body):
            body = tagged.group(1).strip()
        body = _LEAD_IN.sub("", body, count=1).strip()
        if body.startswith("{") and body.endswith("}"):
            body = _summary_in_object(body) or body
        if body == before:
            break
    return body


def _summary_in_object(text: str) -> str | None:
    try:
        data = loads_strict(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    by_key = {field_key(str(k)): v for k, v in data.items()}
    for key in SUMMARY_KEYS:
        value = by_key.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def json_in_string(value: str) -> Any:
    """The JSON array or object a string holds (inside a code fence too), or None."""
    body = value.strip()
    if fenced := _OUTER_FENCE.match(body):
        body = fenced.group(1).strip()
    if not body.startswith(("[", "{")):
        return None
    try:
        return loads_strict(body)
    except ValueError:
        return None


def _wants_container(annotation: Any) -> bool:
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        return any(_wants_container(a) for a in get_args(annotation) if a is not type(None))
    if origin in (list, dict) or annotation in (list, dict):
        return True
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def coerce_tool_input(raw: Any, model: type[BaseModel]) -> Any:
    """A tool call's input with the liberties that cannot change its meaning taken back: the
    whole input sent as a JSON string, a list or object field sent as a JSON string (fenced
    too). Unknown keys stay: the input model refuses them, so a misspelt option is reported,
    never silently dropped from a call that changes files."""
    if isinstance(raw, str):
        parsed = json_in_string(raw)
        raw = parsed if isinstance(parsed, dict) else raw
    if not isinstance(raw, dict):
        return raw
    out = dict(raw)
    for name, info in model.model_fields.items():
        value = out.get(name)
        if isinstance(value, str) and _wants_container(info.annotation):
            parsed = json_in_string(value)
            if isinstance(parsed, list | dict):
                out[name] = parsed
    return out
