"""The MCP part of the settings: how one server is launched or reached (the top-level key
`mcp_servers`, older than the extension), and the client's limits (its section, `mcp`).

The same `McpServerSpec` describes a server from settings (`mcp_servers`), from the user's
`mcp.json` (written by `agent mcp add`) and from a project's `.mcp.json` (Claude Code's format,
read leniently by `agent_cli.ext.mcp.servers`), and its `${VAR}` and `${VAR:-default}` expanded
in its command, args, env, url and headers: the agent's own credentials (`CREDENTIAL_VARS`) never
are, whoever wrote the file and whatever the trust (a server naming one is not started:
CredentialVariable says which). An untrusted workspace's settings keep both:
its servers wait for `agent trust` where they are started (servers.py), not here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agent_cli.core.settings.sections import Key, section
from agent_cli.core.text.redaction import CREDENTIAL_VARS

Transport = Literal["stdio", "http", "sse"]


class McpServerSpec(BaseModel):
    """One MCP server: a command to launch (stdio) or a URL (streamable HTTP or SSE)."""

    model_config = ConfigDict(extra="forbid")

    type: Transport | None = Field(
        default=None,
        description="stdio, http (streamable HTTP) or sse; unset: stdio with a command, else http.",
    )
    command: str | None = Field(default=None, min_length=1, description="Program to launch.")
    args: list[str] = Field(default_factory=list, description="Its arguments.")
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment variables.")
    cwd: str | None = Field(default=None, description="Working directory (default: workspace).")
    url: str | None = Field(default=None, min_length=1, description="Server URL (http, sse).")
    headers: dict[str, str] = Field(default_factory=dict, description="HTTP headers to send.")

    @model_validator(mode="after")
    def _one_way_in(self) -> McpServerSpec:
        if self.type is None:
            self.type = "stdio" if self.command else "http"
        if self.type == "stdio" and not self.command:
            raise ValueError("a stdio server needs a 'command'")
        if self.type != "stdio" and not self.url:
            raise ValueError(f"an {self.type} server needs a 'url'")
        return self

    @property
    def transport(self) -> Transport:
        return self.type or "stdio"

    def runs_outside(self) -> list[list[str]]:
        """What it launches outside the sandbox (policy/run_later.py); a URL launches nothing."""
        return [[self.command, *self.args]] if self.command else []

    def launch_line(self) -> str:
        """What the user is shown and trusts: the command line with its environment, or the URL."""
        if self.transport != "stdio":
            return f"{self.transport} {self.url}"
        env = [f"{k}={v}" for k, v in sorted(self.env.items())]
        where = [f"(in {self.cwd})"] if self.cwd else []
        return " ".join([*env, str(self.command), *self.args, *where])

    def trust_line(self) -> str:
        """What `agent trust` shows and fingerprints: the launch line with every header (and,
        for a URL, the environment) as written, variables unexpanded; any change asks again."""
        extra = [f"env {k}={v}" for k, v in sorted(self.env.items())]
        parts = [self.launch_line(), *(extra if self.transport != "stdio" else [])]
        parts.extend(f"header '{k}: {v}'" for k, v in sorted(self.headers.items()))
        return " ".join(parts)


class McpSettings(BaseModel):
    """Limits of the MCP client."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    call_timeout_s: float = Field(
        default=120, gt=0, le=3600, description="Seconds one tool call may take before it fails."
    )
    startup_timeout_s: float = Field(
        default=30, gt=0, le=600, description="Seconds a server may take to start and list tools."
    )
    max_restarts: int = Field(
        default=3, ge=0, le=100, description="Restarts of a crashed server, each on its next call."
    )
    tool_budget_tokens: int | None = Field(
        default=None,
        ge=0,
        description="MCP tool schemas above this many tokens are found through a search tool "
        "instead of being sent; unset: 10 % of the model's context window.",
    )


def kept(local: Any, user: Any) -> Any:
    """An untrusted workspace's part, all of it (see the module's docstring)."""
    return local


SERVERS = Key(
    dict[str, McpServerSpec],
    Field(default_factory=dict, description="MCP servers by name (see also mcp.json, .mcp.json)."),
    kept,
)


def mcp_settings(settings: object) -> McpSettings:
    """The run's `mcp` section (its defaults where the settings were made without it)."""
    return section(settings, "mcp", McpSettings, McpSettings())


def mcp_servers(settings: object) -> dict[str, McpServerSpec]:
    """The settings' `mcp_servers` (none where the settings were made without them)."""
    found: dict[str, McpServerSpec] = section(settings, "mcp_servers", dict, {})
    return found


VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}")


class MissingVariable(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(f"environment variable {name} is not set and has no default")
        self.name = name


class CredentialVariable(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(
            f"it names ${{{name}}}, the agent's own credential, which is never given to an MCP "
            "server; give the server a key of its own"
        )
        self.name = name


def expand(text: str, env: Mapping[str, str]) -> str:
    """Other `${...}` forms (an editor's `${input:x}`) are left as written."""

    def one(match: re.Match[str]) -> str:
        name, has_default, default = match.group(1), match.group(2), match.group(3)
        if name in CREDENTIAL_VARS:
            raise CredentialVariable(name)
        value = env.get(name)
        if value:
            return value
        if has_default is not None:
            return default or ""
        if value is not None:
            return value
        raise MissingVariable(name)

    return VARIABLE.sub(one, text)


def expand_spec(spec: McpServerSpec, env: Mapping[str, str]) -> McpServerSpec:
    """A copy with every variable expanded; MissingVariable names the first one missing,
    CredentialVariable the first of the agent's credentials named."""
    return spec.model_copy(
        update={
            "command": expand(spec.command, env) if spec.command else None,
            "args": [expand(a, env) for a in spec.args],
            "env": {k: expand(v, env) for k, v in spec.env.items()},
            "url": expand(spec.url, env) if spec.url else None,
            "headers": {k: expand(v, env) for k, v in spec.headers.items()},
            "cwd": expand(spec.cwd, env) if spec.cwd else None,
        }
    )
