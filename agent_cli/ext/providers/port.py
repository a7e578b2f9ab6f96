"""The "model_client" port (runtime/providers.py's ModelClientPort) for `provider` bedrock,
vertex or foundry."""

from __future__ import annotations

from collections.abc import Callable

from agent_cli.core.errors import ConfigError
from agent_cli.core.settings.schema import Settings
from agent_cli.ext.providers.platforms import PLATFORMS, Platform
from agent_cli.model.call_log import CallLog
from agent_cli.model.client import ModelClient


def platform_of(settings: Settings) -> Platform:
    platform = PLATFORMS.get(settings.provider)
    if platform is None:
        raise ConfigError(f"provider '{settings.provider}' is Anthropic's API, not a platform")
    return platform


class ProviderPort:
    def __init__(self, settings: Settings) -> None:
        self.platform = platform_of(settings)

    def check(self) -> None:
        self.platform.check()

    def make(
        self, settings: Settings, call_log: CallLog, on_sent: Callable[[], None] | None
    ) -> ModelClient:
        from agent_cli.ext.providers.client import made

        return made(self.platform, settings, call_log, on_sent)
