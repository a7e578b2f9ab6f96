"""The language-server part of the settings (issue 38): which servers check which files, how
long an edit waits for their diagnostics, how many it shows, and formatters run on request."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


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
