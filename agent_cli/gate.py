"""The Gate of the tool registry: pre_tool_use hooks, then permissions; post_tool_use after."""

from __future__ import annotations

from typing import Any

from agent_cli.hooks import Hooks
from agent_cli.permissions import Permissions
from agent_cli.redaction import redact
from agent_cli.tool_contract import AnyTool, ToolContext, ToolInput, ToolResult


def _input(args: ToolInput) -> dict[str, Any]:
    return args.model_dump(mode="json", exclude_unset=True)


class PolicyGate:
    def __init__(self, permissions: Permissions, hooks: Hooks) -> None:
        self.permissions = permissions
        self.hooks = hooks

    async def before(self, tool: AnyTool, args: ToolInput, ctx: ToolContext) -> str | None:
        reason = await self.hooks.pre_tool_use(tool.name, _input(args))
        if reason is not None:
            return f"Denied by a pre_tool_use hook: {reason}"
        return await self.permissions.check(tool, args, ctx)

    async def after(
        self, tool: AnyTool, args: ToolInput, result: ToolResult, ctx: ToolContext
    ) -> None:
        # the registry redacts after this call: hooks must not see the key either
        content = redact(result.content, ctx.secrets)
        await self.hooks.post_tool_use(tool.name, _input(args), content, result.is_error)
