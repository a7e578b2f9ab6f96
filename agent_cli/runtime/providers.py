"""The endpoint the model is reached through, when it is not Anthropic's API: the spine keeps
the Anthropic client (model/anthropic.py) and asks the "model_client" port for any other
`provider` (the providers extension answers it: Bedrock, Vertex AI, Foundry)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from agent_cli.core.errors import ConfigError
from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.model.call_log import CallLog
from agent_cli.model.client import ModelClient
from agent_cli.model.credentials import require_credentials
from agent_cli.runtime.extensions.contract import ExtensionContext

if TYPE_CHECKING:
    from agent_cli.runtime.extensions.registry import Extensions

PORT = "model_client"


class ModelClientPort(Protocol):
    """What the "model_client" port gives: a provider's credentials checked (one line naming
    what to set or install: exit 2) and its client made."""

    def check(self) -> None: ...

    def make(
        self, settings: Settings, call_log: CallLog, on_sent: Callable[[], None] | None
    ) -> ModelClient: ...


def provider_port(settings: Settings, paths: Paths, extensions: Extensions) -> ModelClientPort:
    def context(name: str) -> ExtensionContext:
        return ExtensionContext(name, paths.state_dir, paths, settings, "")

    port = extensions.port(PORT, context)
    if port is None:
        raise ConfigError(f"provider '{settings.provider}': no extension reaches it")
    return port  # type: ignore[return-value]  # the port's type is declared here


def require_provider(settings: Settings, paths: Paths, extensions: Extensions) -> None:
    """The provider's credentials (and the packages it needs) are there: else exit 2."""
    if settings.provider == "anthropic":
        require_credentials()
    else:
        provider_port(settings, paths, extensions).check()
