"""The Gate of the tool registry: pre_tool_use hooks, then permissions; post_tool_use after.

Further tool hooks (Claude Code's PreToolUse/PostToolUse) run after ours: they may deny, say
"allow" or "ask" to the permission check, or update the call's input (validated again).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import ValidationError

from agent_cli.core.text.redaction import redact
from agent_cli.core.tool_contract import AnyTool, ToolContext, ToolInput, ToolResult
from agent_cli.policy.hooks import Hooks
from agent_cli.policy.permissions import Permissions


@dataclass
class HookVerdict:
    deny: str | None = None  # the reason the model reads
    decision: str | None = None  # "allow" or "ask", for the permission check
    updated_input: dict[str, Any] | None = None


class ToolHooks(Protocol):
    async def before_tool(
        self, tool: AnyTool, args: ToolInput, ctx: ToolContext
    ) -> HookVerdict: ...

    async def after_tool(
        self, tool: AnyTool, args: ToolInput, result: ToolResult, ctx: ToolContext
    ) -> None: ...


def _input(args: ToolInput) -> dict[str, Any]:
    return args.model_dump(mode="json", exclude_unset=True)


class PolicyGate:
    def __init__(
        self, permissions: Permissions, hooks: Hooks, extra: Sequence[ToolHooks] = ()
    ) -> None:
        self.permissions = permissions
        self.hooks = hooks
        self.extra = list(extra)

    async def before(self, tool: AnyTool, args: ToolInput, ctx: ToolContext) -> str | None:
        # no hook set for the event: no payload made (the input dumped, the result redacted)
        if self.hooks.settings.pre_tool_use:
            reason = await self.hooks.pre_tool_use(tool.name, _input(args))
            if reason is not None:
                return f"Denied by a pre_tool_use hook: {reason}"
        decision: str | None = None
        for hooks in self.extra:
            verdict = await hooks.before_tool(tool, args, ctx)
            if verdict.deny is not None:
                return f"Denied by a PreToolUse hook: {verdict.deny}"
            if verdict.updated_input is not None:
                problem = _update(tool, args, verdict.updated_input)
                if problem is not None:
                    return problem
            decision = verdict.decision or decision
        return await self.permissions.check(tool, args, ctx, decision)

    async def after(
        self, tool: AnyTool, args: ToolInput, result: ToolResult, ctx: ToolContext
    ) -> None:
        if self.hooks.settings.post_tool_use:
            # the registry redacts after this call: hooks must not see the key either
            content = redact(result.content, ctx.secrets)
            await self.hooks.post_tool_use(tool.name, _input(args), content, result.is_error)
        for hooks in self.extra:
            await hooks.after_tool(tool, args, result, ctx)


def _update(tool: AnyTool, args: ToolInput, updated: dict[str, Any]) -> str | None:
    """The registry holds `args`: an updated input is validated whole, then set field by
    field on the same object, so what runs is what the permission check saw."""
    try:
        new = tool.input_model.model_validate({**_input(args), **updated})
    except ValidationError as e:
        return f"A PreToolUse hook gave {tool.name} an input that is not valid: {e.errors()[0]}"
    for name in type(new).model_fields:
        setattr(args, name, getattr(new, name))
    return None
