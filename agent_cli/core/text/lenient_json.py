"""Model output parsed liberally, validated strictly: the one helper for structured replies.

A model writing JSON takes liberties: a code fence, prose around the object, a trailing comma,
Python literals, `camelCase` keys, a list given as one string, an extra field (SPEC §10 lists
`id` among an episode's fields, so a generator writes one), the object wrapped under one key.
`find_objects` finds every JSON object in a text; `validate` drops (and logs) keys the model
does not know, maps near-miss key spellings and list-as-string values onto the model's fields,
then validates with the pydantic model as it is, so required fields and types stay enforced.
"""

from __future__ import annotations

import ast
import json
import logging
import re
import types
from collections.abc import Iterator
from typing import Any, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

MAX_TEXT_CHARS = 2_000_000  # a reply larger than this is not searched for JSON
MAX_DEPTH = 64  # deeper nesting is no realistic structured reply
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


class LenientError(ValueError):
    """No valid object: the message says what was wrong, for a correction request."""


def depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """Nesting depth of a JSON value, counted without recursion, stopping past `limit`."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if deepest > limit:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


def loads_strict(text: str) -> Any:
    """`json.loads` that raises ValueError (never RecursionError) and refuses absurd nesting."""
    try:
        value = json.loads(text)
    except RecursionError as e:
        raise ValueError("the JSON is nested too deeply") from e
    if depth(value) > MAX_DEPTH:
        raise ValueError(f"the JSON is nested deeper than {MAX_DEPTH} levels")
    return value


def _decode_at(text: str, start: int) -> tuple[Any, int] | None:
    """The JSON (or, failing that, Python-literal) object starting at `start`, and its end."""
    decoder = json.JSONDecoder()
    try:
        return decoder.raw_decode(text, start)
    except (ValueError, RecursionError):
        pass
    end = _matching_brace(text, start)
    if end is None:
        return None
    chunk = text[start:end]
    repaired = _TRAILING_COMMA.sub(r"\1", chunk)
    try:
        return json.loads(repaired), end
    except (ValueError, RecursionError):
        pass
    try:  # Python literals: single quotes, True/None (parsed, never evaluated)
        return ast.literal_eval(chunk), end
    except (ValueError, SyntaxError, RecursionError, MemoryError, TypeError):
        return None


def _matching_brace(text: str, start: int) -> int | None:
    """Index just past the brace closing the one at `start`, skipping quoted strings."""
    level, i = 0, start
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            i = _string_end(text, i)
        elif ch == "{":
            level += 1
            if level > MAX_DEPTH:
                return None
        elif ch == "}":
            level -= 1
            if level == 0:
                return i + 1
        i += 1
    return None


def _string_end(text: str, start: int) -> int:
    """Index of the quote closing the string opened at `start` (escapes skipped), or the
    text's end when it never closes."""
    quote, i = text[start], start + 1
    while i < len(text) and text[i] != quote:
        i += 2 if text[i] == "\\" else 1
    return i


def find_objects(text: str) -> list[dict[str, Any]]:
    """Every top-level JSON object in `text`, in order: inside code fences first (a fenced
    object is what the model meant to hand in), then anywhere in the prose."""
    if len(text) > MAX_TEXT_CHARS:
        return []
    found: list[dict[str, Any]] = []
    for chunk in [*(m.group(1) for m in _FENCE.finditer(text)), text]:
        for value in _objects_in(chunk):
            if value not in found:
                found.append(value)
    return found


def _objects_in(text: str) -> Iterator[dict[str, Any]]:
    position = text.find("{")
    while position != -1:
        decoded = _decode_at(text, position)
        if decoded is not None and isinstance(decoded[0], dict) and depth(decoded[0]) <= MAX_DEPTH:
            yield decoded[0]
            position = text.find("{", decoded[1])
        else:
            position = text.find("{", position + 1)


def field_key(name: str) -> str:
    """A key as the model may have spelt it, reduced to one form: 'coreProblem', 'Core
    Problem', 'core-problem' -> 'core_problem'."""
    return re.sub(r"[\s\-]+", "_", _CAMEL.sub(r"_\1", name.strip())).lower()


def _model_of(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """The pydantic model inside an annotation (`X`, `list[X]`, `X | None`) and whether it is
    a list."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        for arg in get_args(annotation):
            found = _model_of(arg)
            if found[0] is not None or found[1]:
                return found
        return None, False
    if origin is list:
        inner = get_args(annotation)
        model = inner[0] if inner and isinstance(inner[0], type) else None
        return (model if model and issubclass(model, BaseModel) else None), True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    return None, False


def as_list(value: Any) -> Any:
    """A list where one belongs: a JSON array inside a string is parsed, one string becomes
    one item, a bullet list in one string becomes its items, null becomes empty."""
    if value is None:
        return []
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith("["):
        try:
            parsed = loads_strict(text)
        except ValueError:
            parsed = None
        if isinstance(parsed, list):
            return parsed
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > 1 and all(re.match(r"^([-*•]|\d+[.)])\s+", line) for line in lines):
        return [re.sub(r"^([-*•]|\d+[.)])\s+", "", line) for line in lines]
    return [text] if text else []


def clean(data: dict[str, Any], model: type[BaseModel], where: str = "") -> dict[str, Any]:
    """`data` shaped for `model`: keys mapped onto its fields, unknown keys dropped and logged,
    nulls for fields with defaults dropped, lists given as strings made lists; nested models
    alike. Values are otherwise left for the model to validate."""
    fields = model.model_fields
    by_key = {field_key(name): name for name in fields}
    out: dict[str, Any] = {}
    dropped: list[str] = []
    for key, value in data.items():
        name = key if key in fields else by_key.get(field_key(str(key)))
        if name is None or name in out:
            dropped.append(str(key))
            continue
        info = fields[name]
        if value is None and not info.is_required():
            continue
        inner, is_list = _model_of(info.annotation)
        if is_list:
            value = as_list(value)
        if inner is not None and isinstance(value, dict):
            value = clean(value, inner, f"{where}{name}.")
        elif inner is not None and isinstance(value, list):
            value = [
                clean(v, inner, f"{where}{name}[{i}].") if isinstance(v, dict) else v
                for i, v in enumerate(value)
            ]
        out[name] = value
    if dropped:
        names = ", ".join(where + k for k in dropped)
        log.info("ignored unknown keys in a %s reply: %s", model.__name__, names)
    return out


def describe(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or '(object)'}: {err['msg']}"
        for err in error.errors()
    )


def validate(data: Any, model: type[M]) -> M:
    """One object, liberally shaped, strictly validated. Raises LenientError."""
    if isinstance(data, str):
        return parse(data, model)
    if not isinstance(data, dict):
        raise LenientError(f"expected a JSON object, got {type(data).__name__}")
    try:
        return model.model_validate(clean(data, model))
    except ValidationError as e:
        wrapped = _unwrapped(data)
        if wrapped is not None:
            try:
                return model.model_validate(clean(wrapped, model))
            except ValidationError:
                pass
        raise LenientError(describe(e)) from e


def _unwrapped(data: dict[str, Any]) -> dict[str, Any] | None:
    """The object inside `{"episode": {...}}`: one key holding one object."""
    if len(data) == 1:
        (inner,) = data.values()
        if isinstance(inner, dict):
            return inner
    return None


def parse(text: str, model: type[M], *, prefer_last: bool = False) -> M:
    """The object in a model's reply that validates as `model`: code fences and prose around
    it tolerated; the first (or, with `prefer_last`, the last) valid one wins. Raises
    LenientError saying what was wrong with the best candidate."""
    candidates = find_objects(text)
    if not candidates:
        raise LenientError(_why_none(text))
    problem = ""
    for data in reversed(candidates) if prefer_last else candidates:
        try:
            return validate(data, model)
        except LenientError as e:
            problem = problem or str(e)
    raise LenientError(problem)


def _why_none(text: str) -> str:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start or len(text) > MAX_TEXT_CHARS:
        return "the reply holds no JSON object"
    try:
        json.loads(text[start : end + 1])
    except (ValueError, RecursionError) as e:
        return f"the JSON does not parse: {e}"
    return "the JSON is nested too deeply"
