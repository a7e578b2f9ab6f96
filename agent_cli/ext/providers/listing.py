"""The endpoint's models, the one in use marked: Anthropic's API (or one like it) lists its
own (GET /v1/models); a platform's SDK client has no such list, nor has an endpoint that
answers 404: the models the agent knows for it are listed instead."""

from __future__ import annotations

from dataclasses import dataclass

from agent_cli.core.settings.models import aliases
from agent_cli.core.settings.schema import Settings
from agent_cli.ext.providers.platforms import PLATFORMS
from agent_cli.runtime.extensions.contract import CommandPort

MAX_LISTED = 1_000


@dataclass(frozen=True)
class Listing:
    models: list[str]
    source: str  # where the list came from, said above it
    in_use: str  # as the endpoint names it


def _known(settings: Settings) -> list[str]:
    named = [*settings.prices, *settings.model_aliases.values(), *settings.context_windows]
    return sorted(dict.fromkeys(named))


async def _endpoint(settings: Settings) -> tuple[list[str] | None, str]:
    """(the models GET /v1/models lists, where), or (None, why not)."""
    import anthropic

    from agent_cli.model.anthropic import trust_store
    from agent_cli.model.credentials import require_credentials

    require_credentials()
    http = anthropic.DefaultAsyncHttpxClient(verify=trust_store())
    async with anthropic.AsyncAnthropic(max_retries=1, timeout=30, http_client=http) as client:
        where = str(client.base_url).rstrip("/")
        found: list[str] = []
        try:
            async for model in client.models.list(limit=100):
                found.append(model.id)
                if len(found) >= MAX_LISTED:
                    break
        except anthropic.APIStatusError as e:
            return None, f"{where} has no models list ({e.status_code})"
        except anthropic.APIError as e:
            return None, f"{where} did not answer ({type(e).__name__})"
    return found, f"{where}/v1/models"


async def listing(settings: Settings) -> Listing:
    platform = PLATFORMS.get(settings.provider)
    if platform is not None:
        models = sorted(dict.fromkeys(platform.ids.values()))
        in_use = platform.wire_id(settings.model)
        return Listing(models, f"the models the agent knows on {platform.name}", in_use)
    found, where = await _endpoint(settings)
    if found is None:
        return Listing(_known(settings), f"{where}: the models the agent knows", settings.model)
    return Listing(found, where, settings.model)


def lines(found: Listing, settings: Settings) -> list[str]:
    """One line a model (`*` marks the one in use, the aliases naming it follow)."""
    platform = PLATFORMS.get(settings.provider)
    named: dict[str, list[str]] = {}
    for alias, model in aliases(settings).items():
        wire = platform.wire_id(model) if platform is not None else model
        named.setdefault(wire, []).append(alias)
    models = found.models if found.in_use in found.models else [*found.models, found.in_use]
    out = [f"Models ({found.source}); * in use:"]
    for model in models:
        mark = "*" if model == found.in_use else " "
        also = f"  ({', '.join(sorted(named[model]))})" if model in named else ""
        missing = "  [not listed by the endpoint]" if model not in found.models else ""
        out.append(f"{mark} {model}{also}{missing}")
    return out


async def models_command(port: CommandPort, arg: str) -> None:
    settings = port.context.settings
    port.say("\n".join(lines(await listing(settings), settings)))
