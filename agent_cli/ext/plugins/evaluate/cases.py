"""The cases file of `agent plugin eval`: a JSON list of cases, each a prompt and the checks
that say whether a run of it passed.

    [{"id": "adds-a-test", "prompt": "Add a test for parse()",
      "checks": [{"file_exists": "tests/test_parse.py"}, {"answer_matches": "(?i)added"},
                 {"tool_used": "review:testing"}, {"command": "python -m pytest -q"}]}]
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from agent_cli.core.errors import UsageError

# a run's id is `<case>.<with|without>.<n>`: it names a worktree, a branch and a state folder
CASE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
KINDS = ("file_exists", "answer_matches", "tool_used", "command")


class Check(BaseModel):
    """Exactly one of the four keys."""

    model_config = ConfigDict(extra="forbid")

    file_exists: str | None = Field(
        default=None, description="A path relative to the run's tree that exists after it."
    )
    answer_matches: str | None = Field(
        default=None, description="A regular expression searched in the run's final answer."
    )
    tool_used: str | None = Field(
        default=None,
        description="A tool the run called (`write_file`, `mcp__server__tool`), or a skill or "
        "agent type it used by its plugin name (`plugin:skill`); `*` and `?` match as in a glob.",
    )
    command: str | None = Field(
        default=None, description="A shell command run in the tree after the run: exit 0 passes."
    )

    @model_validator(mode="after")
    def _one_key(self) -> Check:
        given = [k for k in KINDS if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"a check has exactly one of {', '.join(KINDS)}")
        return self

    @field_validator("file_exists")
    @classmethod
    def _inside(cls, value: str) -> str:
        path = PurePosixPath(value)
        if not value.strip() or path.is_absolute() or ".." in path.parts:
            raise ValueError("a relative path inside the run's tree")
        return value

    @field_validator("answer_matches")
    @classmethod
    def _a_regex(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as e:
            raise ValueError(f"not a regular expression ({e})") from e
        return value

    @field_validator("tool_used", "command")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("empty")
        return value

    @property
    def kind(self) -> str:
        return next(k for k in KINDS if getattr(self, k) is not None)

    @property
    def value(self) -> str:
        return str(getattr(self, self.kind))

    def label(self) -> str:
        return f"{self.kind} {self.value}"


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Unique in the file: names the case's runs.")
    prompt: str = Field(min_length=1, description="What `agent run -p` is given.")
    checks: list[Check] = Field(
        default_factory=list, description="All must hold for a run to pass; none: it answered."
    )

    @field_validator("id")
    @classmethod
    def _id_is_a_name(cls, value: str) -> str:
        if not CASE_ID.match(value):
            raise ValueError("letters, digits, '_' or '-' only (at most 40)")
        return value

    @field_validator("prompt")
    @classmethod
    def _prompt_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the prompt is empty")
        return value


def _case(source: str, index: int, data: Any) -> Case:
    name = data.get("id") if isinstance(data, dict) else None
    where = f"{source}: case {name!r}" if isinstance(name, str) else f"{source}: case {index + 1}"
    if not isinstance(data, dict):
        raise UsageError(f"{where}: a case is a JSON object")
    try:
        return Case.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "(case)"
        raise UsageError(f"{where}: {key}: {first['msg']}") from e


def parse_cases(text: str, source: str = "cases") -> list[Case]:
    """Every case of `text`; the first bad one stops it (exit 2), naming the case and key."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"{source}: not valid JSON (line {e.lineno}: {e.msg})") from e
    if isinstance(data, dict) and set(data) == {"cases"}:
        data = data["cases"]
    if not isinstance(data, list) or not data:
        raise UsageError(f'{source}: a non-empty JSON list of cases (or {{"cases": [...]}})')
    cases: list[Case] = []
    seen: set[str] = set()
    for index, item in enumerate(data):
        case = _case(source, index, item)
        if case.id in seen:
            raise UsageError(f"{source}: case {case.id!r}: id: used by an earlier case")
        seen.add(case.id)
        cases.append(case)
    return cases


def load_cases(path: Path) -> list[Case]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise UsageError(f"{path}: no such cases file") from e
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: cannot be read ({e})") from e
    return parse_cases(text, str(path))
