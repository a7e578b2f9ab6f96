"""One tool round: every tool_use of an assistant message gets exactly one result, in call order.

Consecutive calls that may run concurrently (read-only tools, `task`) run together; any other
call runs alone, so side effects keep the order the model asked for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from agent_cli.core.events import Event, ToolEnd, ToolStart
from agent_cli.core.messages import Block
from agent_cli.core.tool_contract import ToolContext, ToolResult
from agent_cli.model.client import ModelReply
from agent_cli.tools.registry import ToolRegistry

CUT_OFF = (
    "Not run: your reply hit the output token limit while writing this call, so its input is "
    "incomplete. Call the tool again with a shorter input (write a large file in parts)."
)


def cut_off_call(content: list[Block], stop_reason: str | None) -> str | None:
    """The id of the tool_use the output token limit cut off (the reply's last block)."""
    last = content[-1] if content else {}
    if stop_reason != "max_tokens" or last.get("type") != "tool_use":
        return None
    return str(last.get("id"))


def not_run_calls(reply: ModelReply) -> dict[str, str]:
    """tool_use id -> the error result of a call that must not run: cut off by the output
    limit, an input that is not valid JSON, an id the reply had already used."""
    refused = dict(reply.not_run)
    cut_off = cut_off_call(reply.content, reply.stop_reason)
    if cut_off is not None:
        refused[cut_off] = CUT_OFF
    return refused


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
    call: Block,
    registry: ToolRegistry,
    ctx: ToolContext,
    emit: Callable[[Event], None],
    refusal: str | None = None,
) -> ToolResult:
    raw: Any = call.get("input")
    emit(ToolStart(id=call["id"], name=call["name"], input=raw if isinstance(raw, dict) else {}))
    if refusal is not None:  # e.g. partial input: running it could write half a file
        result = ToolResult(refusal, is_error=True, summary=f"{call['name']}: not run")
    else:
        result = await registry.dispatch(call["name"], raw, ctx, call_id=call["id"])
    summary = result.summary or registry.describe(call["name"], raw)
    emit(
        ToolEnd(
            id=call["id"],
            name=call["name"],
            is_error=result.is_error,
            summary=summary,
            display=result.display,
            output=result.content,
        )
    )
    return result


async def run_round(
    calls: list[Block],
    registry: ToolRegistry,
    ctx: ToolContext,
    emit: Callable[[Event], None],
    done: dict[str, ToolResult],
    refused: dict[str, str] | None = None,
) -> list[ToolResult]:
    """Fills `done` (tool_use id -> result) as calls finish, so an interrupt keeps them.
    A `refused` call (id -> error) is answered with its error, not run."""
    refused = refused or {}
    for group in _groups(calls, registry):
        runs = [run_call(c, registry, ctx, emit, refused.get(c["id"])) for c in group]
        # one call is awaited as it is: gather would make it a task of its own
        results = [await runs[0]] if len(runs) == 1 else await asyncio.gather(*runs)
        for call, result in zip(group, results, strict=True):
            done[call["id"]] = result
    return [done[c["id"]] for c in calls]
