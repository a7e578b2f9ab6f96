"""How the daily commands reach the run's service."""

from __future__ import annotations

from agent_cli.core.errors import UsageError
from agent_cli.ext.daily.service import Daily
from agent_cli.ui.slash.host import Host


def daily(host: Host) -> Daily:
    found = host.runtime.extension("daily")
    if not isinstance(found, Daily):
        raise UsageError("the daily commands are not available in this run")
    return found
