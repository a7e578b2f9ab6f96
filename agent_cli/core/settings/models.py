"""Which endpoint the model is reached through (`provider`) and the model names a user may
write for it (`model_aliases`): `sonnet`, `opus`, `haiku` resolve through them everywhere a
model is named (the `model` setting, `--model`, `/model`, a subagent's or command's front
matter), so a user can point them at any endpoint's own names."""

from __future__ import annotations

import os
from typing import Literal, Protocol

Provider = Literal["anthropic", "bedrock", "vertex", "foundry"]
PROVIDER_VARIABLE = "AGENT_PROVIDER"

# Claude Code's names for the same thing: an alias pointed at an endpoint's model by a variable
ALIAS_VARIABLES = {
    "sonnet": "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "opus": "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "haiku": "ANTHROPIC_DEFAULT_HAIKU_MODEL",
}


def default_aliases() -> dict[str, str]:
    return {"sonnet": "claude-sonnet-4-6", "opus": "claude-opus-4-6", "haiku": "claude-haiku-4-5"}


class _FileAliases(Protocol):
    model_aliases: dict[str, str]


class Named(Protocol):
    """The settings' part aliases are read from (schema.py's Settings, which imports this)."""

    model_aliases: dict[str, str]

    @property
    def project_files(self) -> _FileAliases: ...


def aliases(settings: Named) -> dict[str, str]:
    """Alias (lower case) -> model name: the defaults, `model_aliases`, then the
    ANTHROPIC_DEFAULT_*_MODEL variables (over the files, as AGENT_MODEL is), then
    `project_files.model_aliases` (project files only, the most specific)."""
    given = {**default_aliases(), **settings.model_aliases}  # naming one keeps the others
    found = {name.lower(): model for name, model in given.items()}
    for name, variable in ALIAS_VARIABLES.items():
        if value := os.environ.get(variable, "").strip():
            found[name] = value
    found.update({k.lower(): v for k, v in settings.project_files.model_aliases.items()})
    return found


def resolve_model(name: str, settings: Named) -> str:
    """The model `name` means: an alias's model, else `name` as written."""
    return aliases(settings).get(name.strip().lower(), name.strip())
