"""Settings sections that extensions bring, each under its extension's name, and the other
top-level keys a built-in owns (`Key`: `mcp_servers`, `goal`, `verify`, `status_line`).

The agent's own model refuses unknown keys; an installed extension's section is a field of that
model extended for the run (made once per set of sections), so a bad or unknown key in it is an
error naming the key, as anywhere else. A key no installed extension claims stays unknown."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from pydantic import BaseModel, Field, create_model

log = logging.getLogger(__name__)

Narrow = Callable[[Any, Any], Any]
"""An extension's `narrow`: (the untrusted workspace's section, the user's) -> what stays."""


@dataclass(frozen=True)
class Key:
    """A top-level settings key an extension brings beside its own section (one older than
    the extension: `mcp_servers`, `verify`): its type, its field (default, description) and
    what an untrusted workspace may keep of it (None: nothing, until `agent trust`)."""

    annotation: Any
    field: Any  # pydantic's Field(...): its default and description
    narrow: Narrow | None = None


Sections = tuple[tuple[str, type[BaseModel] | Key], ...]
"""(key, its settings model or `Key`), in the extensions' order: a section's key is its
extension's name."""

ModelT = TypeVar("ModelT", bound=BaseModel)
SectionT = TypeVar("SectionT")


def extended(base: type[ModelT], sections: Sections) -> type[ModelT]:
    """`base` with a field per section, each defaulting to its model's defaults."""
    return cast("type[ModelT]", _extended(base, sections)) if sections else base


@functools.cache
def _extended(base: type[BaseModel], sections: Sections) -> type[BaseModel]:
    fields: dict[str, Any] = {
        name: (model.annotation, model.field)
        if isinstance(model, Key)
        else (model, Field(default_factory=model, description=f"The {name} extension's."))
        for name, model in sections
    }
    return create_model(base.__name__, __base__=base, __module__=base.__module__, **fields)


def section(settings: object, key: str, kind: type[SectionT], absent: SectionT) -> SectionT:
    """The settings' `key` (an extension's section), `absent` when the settings were made
    without it (a test's bare `Settings()`)."""
    value = getattr(settings, key, None)
    if value is None:
        return absent
    if not isinstance(value, kind):
        raise TypeError(f"the '{key}' settings are a {type(value).__name__}")
    return value


def without(data: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """`data` less the sections of extensions declared but not loaded (their own line said
    why: their settings are not a second error)."""
    names = set(names)
    return {k: v for k, v in data.items() if k not in names} if names & set(data) else data


def untrusted(
    local: dict[str, Any],
    sections: Sections,
    user: dict[str, Any] | None = None,
    narrowers: Mapping[str, Narrow] | None = None,
) -> dict[str, Any]:
    """An untrusted workspace's settings less the extensions' sections: what an extension does
    with its settings is not known to narrow what runs, unless it says so itself (its `narrow`:
    what may stay of the workspace's section, given the user's)."""
    names = [name for name, _ in sections if name in local]
    if not names:
        return local
    narrowers, user = narrowers or {}, user or {}
    kept = {n: narrowers[n](local[n], user.get(n) or {}) for n in names if n in narrowers}
    dropped = [name for name in names if name not in kept]
    if dropped:
        log.warning(
            "the workspace's settings for %s are ignored until `agent trust`",
            ", ".join(f"the {name} extension" for name in dropped),
        )
    return {**without(local, names), **{n: v for n, v in kept.items() if v}}
