"""What a session costs and why: every model call's tokens, cost, agent and, for a miss, its
cause (records.py), summed per agent (the run's service `cost`). Loading this module imports
nothing else of the feature."""

from __future__ import annotations

from typing import Any

from agent_cli.runtime.extensions.contract import (
    CommandPort,
    Extension,
    ExtensionContext,
    PanelPart,
    SlashCommand,
)


def _service(runtime: Any) -> object:
    from agent_cli.ext.cost.service import CostService

    return CostService(runtime)


def _cost(port: CommandPort, arg: str) -> None:
    from agent_cli.ext.cost.panel import cost_command

    cost_command(port, arg)


def _panel_parts(context: ExtensionContext) -> list[PanelPart]:
    from agent_cli.ext.cost.panel import CostPart

    return [CostPart(context)]


def _spend(context: ExtensionContext) -> object:
    from agent_cli.ext.cost.panel import SpendPort

    return SpendPort(context)


def _session_cost(context: ExtensionContext) -> object:
    from agent_cli.ext.cost.report import SessionCostReport

    return SessionCostReport()


EXTENSION = Extension(
    name="cost",
    about="what a session costs and why: calls per agent, cache hits and misses with their cause",
    service=_service,
    slash_commands=[
        SlashCommand(
            "/cost", "calls, tokens, cache hit ratio and cost per agent; the misses", _cost
        )
    ],
    panel_parts=_panel_parts,
    ports={"session_cost": _session_cost, "spend": _spend},
)
