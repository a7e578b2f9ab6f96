"""Bedrock, Vertex AI and Foundry: what each needs (its packages, its credentials from the
usual places), the SDK's own client for it, and the model ids that platform uses.

A missing package or credential is one line naming what to install or set (exit 2), said
before any work; the SDK reads the same variables again when it makes its client."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent_cli.core.errors import CredentialsError
from agent_cli.core.settings.schema import Settings

# the first-party ids the agent knows (its prices, its context windows) -> the platform's
# (platform.claude.com, "Model IDs and versions": Bedrock's own format; Vertex AI's matches the
# API from the 4.6 models on, an '@' before the date for the earlier ones)
BEDROCK_IDS = {
    "claude-sonnet-4-6": "global.anthropic.claude-sonnet-4-6",
    "claude-opus-4-6": "global.anthropic.claude-opus-4-6-v1",
    "claude-haiku-4-5": "global.anthropic.claude-haiku-4-5-20251001-v1:0",
    "claude-sonnet-4-5": "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "claude-opus-4-5": "global.anthropic.claude-opus-4-5-20251101-v1:0",
}
VERTEX_IDS = {
    "claude-sonnet-4-6": "claude-sonnet-4-6",
    "claude-opus-4-6": "claude-opus-4-6",
    "claude-haiku-4-5": "claude-haiku-4-5@20251001",
    "claude-sonnet-4-5": "claude-sonnet-4-5@20250929",
    "claude-opus-4-5": "claude-opus-4-5@20251101",
}
FOUNDRY_IDS = {name: name for name in VERTEX_IDS}  # a deployment is named as its model
VERTEX_TOKEN = "ANTHROPIC_VERTEX_ACCESS_TOKEN"  # ours: a token minted elsewhere (gcloud)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _need(module: str, extra: str, library: str) -> None:
    if not _installed(module):
        raise CredentialsError(
            f"provider {extra} needs {library}: pip install 'agent-cli[{extra}]'"
        )


def _env(*names: str) -> str | None:
    return next((os.environ[n] for n in names if os.environ.get(n)), None)


@dataclass(frozen=True)
class Platform:
    name: str
    ids: dict[str, str]  # first-party id -> the platform's
    check: Callable[[], None]
    sdk: Callable[[Settings, Any], Any]  # (settings, http client) -> the SDK's client
    lacks: tuple[str, ...] = field(default=())  # what the agent turns off there

    def wire_id(self, model: str) -> str:
        """The id sent: a known first-party id becomes the platform's; anything else (the
        platform's own id, an inference profile's ARN) goes as written."""
        return self.ids.get(model, model)


def _bedrock_check() -> None:
    _need("botocore", "bedrock", "boto3")
    _need("boto3", "bedrock", "boto3")
    boto3 = importlib.import_module("boto3")  # untyped: no stubs
    broken = importlib.import_module("botocore.exceptions").BotoCoreError
    try:
        session = boto3.Session(profile_name=os.environ.get("AWS_PROFILE") or None)
        region = _env("AWS_REGION", "AWS_DEFAULT_REGION") or session.region_name
        found = os.environ.get("AWS_BEARER_TOKEN_BEDROCK") or session.get_credentials()
    except broken as e:  # a profile that is not there, half the keys...
        raise CredentialsError(f"provider bedrock: {e}") from e
    if not region:
        raise CredentialsError("provider bedrock: set AWS_REGION (or a region in your profile)")
    if found is None:
        raise CredentialsError(
            "provider bedrock: no AWS credentials: set AWS_PROFILE or AWS_ACCESS_KEY_ID and "
            "AWS_SECRET_ACCESS_KEY (or AWS_BEARER_TOKEN_BEDROCK), or run `aws sso login`"
        )


def _bedrock(settings: Settings, http: Any) -> Any:
    from anthropic import AsyncAnthropicBedrock

    profile = os.environ.get("AWS_PROFILE") or None
    return AsyncAnthropicBedrock(
        aws_profile=None if os.environ.get("AWS_BEARER_TOKEN_BEDROCK") else profile,
        max_retries=0,
        timeout=_timeout(settings),
        http_client=http,
    )


def _vertex_check() -> None:
    if not _env("CLOUD_ML_REGION"):
        raise CredentialsError("provider vertex: set CLOUD_ML_REGION (e.g. global, us-east5)")
    if os.environ.get(VERTEX_TOKEN):
        if not _env("ANTHROPIC_VERTEX_PROJECT_ID"):
            raise CredentialsError("provider vertex: set ANTHROPIC_VERTEX_PROJECT_ID")
        return
    _need("google.auth", "vertex", "google-auth")
    google_auth = importlib.import_module("google.auth")  # untyped: no stubs
    try:
        _, project = google_auth.default()
    except google_auth.exceptions.DefaultCredentialsError as e:
        raise CredentialsError(
            "provider vertex: no Google credentials: run `gcloud auth application-default "
            f"login` or set GOOGLE_APPLICATION_CREDENTIALS ({e})"
        ) from e
    if not (project or _env("ANTHROPIC_VERTEX_PROJECT_ID")):
        raise CredentialsError("provider vertex: set ANTHROPIC_VERTEX_PROJECT_ID")


def _vertex(settings: Settings, http: Any) -> Any:
    from anthropic import AsyncAnthropicVertex

    return AsyncAnthropicVertex(
        access_token=os.environ.get(VERTEX_TOKEN) or None,
        max_retries=0,
        timeout=_timeout(settings),
        http_client=http,
    )


def _foundry_check() -> None:
    if not _env("ANTHROPIC_FOUNDRY_API_KEY"):
        raise CredentialsError("provider foundry: set ANTHROPIC_FOUNDRY_API_KEY")
    if not _env("ANTHROPIC_FOUNDRY_RESOURCE", "ANTHROPIC_FOUNDRY_BASE_URL"):
        raise CredentialsError(
            "provider foundry: set ANTHROPIC_FOUNDRY_RESOURCE (or ANTHROPIC_FOUNDRY_BASE_URL)"
        )


def _foundry(settings: Settings, http: Any) -> Any:
    from anthropic import AsyncAnthropicFoundry

    return AsyncAnthropicFoundry(max_retries=0, timeout=_timeout(settings), http_client=http)


PLATFORMS = {
    "bedrock": Platform("bedrock", BEDROCK_IDS, _bedrock_check, _bedrock, ("web search",)),
    "vertex": Platform("vertex", VERTEX_IDS, _vertex_check, _vertex, ("web search",)),
    "foundry": Platform("foundry", FOUNDRY_IDS, _foundry_check, _foundry, ("web search",)),
}


def _timeout(settings: Settings) -> Any:
    """As the Anthropic client's: the whole request bounded, and the gap between two bytes of a
    stream by `stream_idle_timeout_s` (a silent stream is asked again)."""
    import httpx2

    return httpx2.Timeout(settings.request_timeout_s, read=settings.stream_idle_timeout_s)
