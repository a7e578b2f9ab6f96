"""The language servers enabled plugins bundle (the port `"plugin_bundles"`), in Claude Code's
`.lsp.json` shape: `{name: {command, args?, extensionToLanguage: {".go": "go"}}}`. Each is
`<plugin>:<server>`, its command and arguments with the plugin's variables expanded; one that
cannot be used is a warning line naming the plugin and the server."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from agent_cli.ext.lsp.settings import LspServerSpec

if TYPE_CHECKING:
    from agent_cli.runtime.bundles import Bundle

log = logging.getLogger(__name__)


def plugin_servers(bundles: Sequence[Bundle]) -> dict[str, tuple[LspServerSpec, str]]:
    """name -> (spec, where it comes from: `plugin NAME`)."""
    found: dict[str, tuple[LspServerSpec, str]] = {}
    for bundle in bundles:
        for server, raw in bundle.lsp_servers.items():
            name = f"{bundle.name}:{server}"
            try:
                found[name] = (_spec(raw, bundle), f"plugin {bundle.name}")
            except (ValueError, TypeError) as e:
                log.warning("plugin %s: language server %s not used: %s", bundle.name, server, e)
    return found


def _spec(raw: Mapping[str, Any], bundle: Bundle) -> LspServerSpec:
    command, args = raw.get("command"), raw.get("args") or []
    if not isinstance(command, str) or not command.strip():
        raise ValueError("no command")
    if not isinstance(args, list):
        raise ValueError("args is not a list")
    languages = raw.get("extensionToLanguage")
    if not isinstance(languages, Mapping) or not languages:
        raise ValueError("no extensionToLanguage")
    argv = [bundle.expand(command), *(bundle.expand(str(a)) for a in args)]
    options = raw.get("initializationOptions")
    try:
        return LspServerSpec(
            command=argv,
            extensions=[str(suffix) for suffix in languages],
            init_options=dict(options) if isinstance(options, Mapping) else {},
        )
    except ValidationError as e:
        raise ValueError(e.errors()[0]["msg"]) from None
