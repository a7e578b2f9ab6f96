"""`AGENT_SETTINGS`: a JSON object of settings for one process, over the user's and the
workspace's files and under the command line. `agent batch` gives each task's run its own
settings this way without writing into the task's tree or the user's config."""

from __future__ import annotations

import json
import os
from typing import Any

from agent_cli.core.errors import ConfigError

VARIABLE = "AGENT_SETTINGS"


def env_settings() -> dict[str, Any]:
    raw = os.environ.get(VARIABLE, "").strip()
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, RecursionError) as e:
        raise ConfigError(f"{VARIABLE}: not valid JSON ({e})") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{VARIABLE}: must hold a JSON object")
    return data
