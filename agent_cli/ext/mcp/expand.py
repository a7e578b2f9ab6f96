"""`${VAR}` and `${VAR:-default}` in a server's command, args, env, url and headers.

The agent's own credentials (`CREDENTIAL_VARS`) are never expanded, whoever wrote the file and
whatever the trust: a server naming one is not started (CredentialVariable says which)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from agent_cli.core.text.redaction import CREDENTIAL_VARS
from agent_cli.ext.mcp.settings import McpServerSpec

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
