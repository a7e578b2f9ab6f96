"""The language-server part of the settings (issue 38): which servers check which files, how
long an edit waits for their diagnostics, how many it shows, and formatters run on request;
and what an untrusted workspace may say of them (`narrow`)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent_cli.core.settings.sections import section

log = logging.getLogger(__name__)

COMMANDS = ("servers", "formatters")  # what a workspace names to be run, until `agent trust`


class LspServerSpec(BaseModel):
    """One language server, spoken to over its standard input and output."""

    model_config = ConfigDict(extra="forbid")

    command: list[str] = Field(min_length=1, description="The server's argv, e.g. ['pylsp'].")
    extensions: list[str] = Field(
        min_length=1, description="File suffixes it covers, with their dot: ['.py', '.pyi']."
    )
    root_markers: list[str] = Field(
        default_factory=list,
        description="Files that mark a project's root (the nearest above the file wins).",
    )
    init_options: dict[str, Any] = Field(
        default_factory=dict, description="The server's initializationOptions."
    )

    @field_validator("extensions")
    @classmethod
    def _dotted(cls, value: list[str]) -> list[str]:
        for suffix in value:
            if not suffix.startswith(".") or len(suffix) < 2:
                raise ValueError(f"{suffix!r}: an extension starts with a dot, e.g. '.py'")
        return value


class LspSettings(BaseModel):
    """Diagnostics after every edit from the language servers that cover the file."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(default=True, description="Ask language servers after edits at all.")
    servers: dict[str, LspServerSpec] = Field(
        default_factory=dict,
        description="Servers by name; they come before the built-in ones (used when on PATH).",
    )
    builtin: bool = Field(
        default=True, description="Use the built-in servers whose command is on PATH."
    )
    # pylsp lints half a second after a change (its debounce); 750 ms sees it on a quiet machine
    wait_ms: int = Field(
        default=750, ge=0, le=10_000, description="How long an edit waits for diagnostics."
    )
    start_timeout_s: float = Field(
        default=15, gt=0, le=120, description="How long a server may take to initialize."
    )
    warnings: bool = Field(default=False, description="Show warnings too, not only errors.")
    max_diagnostics: int = Field(default=20, ge=1, le=500, description="Diagnostics per result.")
    max_bytes: int = Field(
        default=4_000, ge=200, le=100_000, description="Bytes of diagnostics per result."
    )
    restarts: int = Field(
        default=3, ge=0, le=20, description="Restarts of a server that died, per run."
    )
    format_on_edit: bool = Field(default=False, description="Run `formatters` after an edit.")
    formatters: dict[str, list[str]] = Field(
        default_factory=dict,
        description="By extension: a command that formats the file in place; '{file}' is its path.",
    )

    def runs_outside(self) -> Iterator[str | list[str]]:
        """The commands it runs outside the sandbox (policy/run_later.py)."""
        yield from (spec.command for spec in self.servers.values())
        yield from self.formatters.values()


def narrow(lsp: Any, user: Any) -> Any:
    """An untrusted workspace's section without its servers and formatters (commands)."""
    if not isinstance(lsp, dict):
        return lsp
    if any(lsp.get(k) for k in COMMANDS):  # said once: settings load once a run
        log.warning("the workspace's lsp servers and formatters are ignored until `agent trust`")
    return {k: v for k, v in lsp.items() if k not in COMMANDS}


def lsp_settings(settings: object) -> LspSettings:
    """The run's `lsp` section (its defaults where the settings were made without it)."""
    return section(settings, "lsp", LspSettings, LspSettings())
