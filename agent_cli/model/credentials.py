"""Credentials check without importing the SDK (start-up stays light)."""

from __future__ import annotations

import os

from agent_cli.core.errors import CredentialsError
from agent_cli.core.text.redaction import CREDENTIAL_VARS as CREDENTIAL_VARS


def require_credentials() -> None:
    if not any(os.environ.get(v) for v in CREDENTIAL_VARS):
        raise CredentialsError(
            "No credentials: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN); "
            "set ANTHROPIC_BASE_URL too for another endpoint."
        )
