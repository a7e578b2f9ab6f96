"""Providers: Amazon Bedrock, Google Vertex AI and Microsoft Foundry, each through the
anthropic SDK's own client (the spine keeps Anthropic's API and asks the "model_client" port
for any other `provider`), and the endpoint's models (`agent models`, `/models`, `/model`).
Loading this module imports nothing else of the feature."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING

from agent_cli.runtime.extensions.contract import (
    CommandPort,
    Extension,
    ExtensionContext,
    SlashCommand,
)

if TYPE_CHECKING:
    import typer


def _port(context: ExtensionContext) -> object:
    from agent_cli.ext.providers.port import ProviderPort

    return ProviderPort(context.settings)


def _models(port: CommandPort, arg: str) -> Awaitable[None]:
    from agent_cli.ext.providers.listing import models_command

    return models_command(port, arg)


def _cli() -> typer.Typer:
    from agent_cli.ext.providers.cli import cli

    return cli()


EXTENSION = Extension(
    name="providers",
    about="Bedrock, Vertex AI and Foundry through the SDK's own clients; the endpoint's models",
    ports={"model_client": _port},
    slash_commands=(
        SlashCommand("/models", "the endpoint's models, the one in use marked", _models),
    ),
    cli=_cli,
)
