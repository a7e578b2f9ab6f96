"""What a session costs and why: every model call's tokens, cost, agent and, for a miss, its
cause (records.py), summed per agent (the run's service `cost`). Loading this module imports
nothing else of the feature."""

from __future__ import annotations

from typing import Any

from agent_cli.runtime.extensions.contract import Extension, ExtensionContext


def _service(runtime: Any) -> object:
    from agent_cli.ext.cost.service import CostService

    return CostService(runtime)


def _session_cost(context: ExtensionContext) -> object:
    from agent_cli.ext.cost.report import SessionCostReport

    return SessionCostReport()


EXTENSION = Extension(
    name="cost",
    about="what a session costs and why: calls per agent, cache hits and misses with their cause",
    service=_service,
    ports={"session_cost": _session_cost},
)
