"""Auto mode's project rules as the user keeps them: the user's edit of a numbered draft read
back into rules (validated as a draft is), and the rules written to the workspace's
`.agent/settings.json` under `auto.rules`, the file's other keys kept."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import ValidationError

from agent_cli.core.errors import ConfigError
from agent_cli.core.files.private_file import read_object, write_private
from agent_cli.ext.auto.drafting import DraftedRules

SETTINGS = Path(".agent") / "settings.json"
NUMBERING = re.compile(r"^\s*(?:\d+\s*[.)]|[-*•])\s*")  # "1. ", "2) ", "- "


def parse_edited(text: str) -> list[str]:
    """One rule per non-empty line, its numbering stripped; a ConfigError says what is wrong."""
    rules = [NUMBERING.sub("", line).strip() for line in text.splitlines()]
    rules = [rule for rule in rules if rule]
    try:
        return list(DraftedRules.model_validate({"rules": rules}).rules)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:])
        at = f"rule {int(where) + 1}: " if where.isdigit() else ""
        raise ConfigError(
            f"auto rules not saved: {at}{first['msg']} (3 to 12 rules, one per line, each at "
            "most 200 characters)"
        ) from e


def save(workspace: Path, rules: list[str]) -> Path:
    """`auto.rules` in the workspace's settings file, replaced; every other key kept."""
    path = workspace / SETTINGS
    data = read_object(path)
    section = data.get("auto")
    if section is not None and not isinstance(section, dict):
        raise ConfigError(f"{path}: `auto` is not an object; fix it first")
    data["auto"] = {**(section or {}), "rules": rules}
    write_private(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")  # whole or not
    return path
