"""One tool round: every tool_use of an assistant message gets exactly one result, in call order.

Consecutive calls that may run concurrently (read-only tools, `task`) run together; any other
call runs alone, so side effects keep the order the model asked for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from agent_cli.events import Event, ToolEnd, ToolStart
from agent_cli.messages import Block
from agent_cli.tools.base import ToolContext, ToolResult
from agent_cli.tools.registry import ToolRegistry


def _groups(calls: list[Block], registry: ToolRegistry) -> list[list[Block]]:
    groups: list[list[Block]] = []
    for call in calls:
        parallel = registry.runs_concurrently(call["name"])
        if parallel and groups and registry.runs_concurrently(groups[-1][0]["name"]):
            groups[-1].append(call)
        else:
            groups.append([call])
    return groups


async def run_call(
    call: Block, registry: ToolRegistry, ctx: ToolContext, emit: Callable[[Event], None]
) -> ToolResult:
    raw: Any = call.get("input")
    emit(ToolStart(id=call["id"], name=call["name"], input=raw if isinstance(raw, dict) else {}))
    result = await registry.dispatch(call["name"], raw, ctx, call_id=call["id"])
    summary = result.summary or registry.describe(call["name"], raw)
    emit(
        ToolEnd(
            id=call["id"],
            name=call["name"],
            is_error=result.is_error,
            summary=summary,
            display=result.display,
        )
    )
    return result


async def run_round(
    calls: list[Block],
    registry: ToolRegistry,
    ctx: ToolContext,
    emit: Callable[[Event], None],
    done: dict[str, ToolResult],
) -> list[ToolResult]:
    """Fills `done` (tool_use id -> result) as calls finish, so an interrupt keeps them."""
    for group in _groups(calls, registry):
        results = await asyncio.gather(*(run_call(c, registry, ctx, emit) for c in group))
        for call, result in zip(group, results, strict=True):
            done[call["id"]] = result
    return [done[c["id"]] for c in calls]
