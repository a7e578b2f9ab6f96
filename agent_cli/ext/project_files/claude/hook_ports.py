"""Claude Code's hook events plugged into our ports: the gate's tool hooks (PreToolUse,
PostToolUse), the loop's turn hooks (SessionStart, UserPromptSubmit, Stop or SubagentStop), the
approval port (Notification) and the compactor (PreCompact)."""

from __future__ import annotations

from typing import Any

from agent_cli.core.events import Event, TurnEnd
from agent_cli.core.messages import Block, Message
from agent_cli.core.text.redaction import redact
from agent_cli.core.tool_contract import (
    AnyTool,
    ToolContext,
    ToolInput,
    ToolResult,
    current_call_id,
)
from agent_cli.ext.project_files.claude.hooks import ClaudeHooks, cc_input, our_input
from agent_cli.policy.approval import ApprovalRequest, Approver, Decision, Denial
from agent_cli.policy.gate import HookVerdict
from agent_cli.policy.turn_hooks import prompt_text, veto_events

MAX_RESPONSE_CHARS = 20_000


def _input(args: ToolInput) -> dict[str, Any]:
    return args.model_dump(mode="json", exclude_unset=True)


class ClaudeToolHooks:
    def __init__(self, hooks: ClaudeHooks) -> None:
        self.hooks = hooks

    async def before_tool(self, tool: AnyTool, args: ToolInput, ctx: ToolContext) -> HookVerdict:
        if not self.hooks.has("PreToolUse"):
            return HookVerdict()
        answer = await self.hooks.fire(
            "PreToolUse",
            tool.name,
            tool_input=cc_input(tool.name, _input(args)),
            tool_use_id=current_call_id.get() or "",
        )
        if answer.decision == "deny":
            return HookVerdict(deny=answer.reason or "denied by a PreToolUse hook")
        updated = our_input(tool.name, answer.updated_input) if answer.updated_input else None
        return HookVerdict(decision=answer.decision, updated_input=updated)

    async def after_tool(
        self, tool: AnyTool, args: ToolInput, result: ToolResult, ctx: ToolContext
    ) -> None:
        if not self.hooks.has("PostToolUse"):
            return
        content = redact(result.content, ctx.secrets)[:MAX_RESPONSE_CHARS]  # hooks never see it
        response = {"content": content, "is_error": result.is_error}
        answer = await self.hooks.fire(
            "PostToolUse",
            tool.name,
            tool_input=cc_input(tool.name, _input(args)),
            tool_response=response,
        )
        notes = [f"PostToolUse hook: {answer.reason}"] if answer.block and answer.reason else []
        notes += answer.context
        if notes:  # the model reads the hook's feedback with the result
            result.content = "\n\n".join([result.content, *notes])


class ClaudeTurnHooks:
    """SessionStart before the first turn, UserPromptSubmit before each; Stop (SubagentStop for
    a child) after each, whose `block` keeps the agent working at most `limit` times a turn."""

    def __init__(
        self,
        hooks: ClaudeHooks,
        limit: int,
        stop_event: str = "Stop",
        resumed: bool = False,
        secrets: tuple[str, ...] = (),
    ) -> None:
        self.hooks = hooks
        self.secrets = secrets
        self.limit = limit
        self.stop_event = stop_event
        self.started = stop_event != "Stop"  # a subagent has no session of its own
        self.source = "resume" if resumed else "startup"
        self.blocks = 0

    async def before_turn(self, blocks: list[Block]) -> list[Event]:
        self.blocks = 0
        context: list[str] = []
        if not self.started:
            self.started = True
            context += (await self.hooks.fire("SessionStart", source=self.source)).context
        if self.stop_event == "Stop" and self.hooks.has("UserPromptSubmit"):  # not a subagent
            answer = await self.hooks.fire("UserPromptSubmit", prompt=prompt_text(blocks))
            if answer.block:
                return veto_events(answer.reason or "blocked by a UserPromptSubmit hook")
            context += answer.context
        if context:
            blocks.append({"type": "text", "text": redact("\n\n".join(context), self.secrets)})
        return []

    async def after_turn(self, end: TurnEnd) -> str | None:
        if end.stop != "done" or not self.hooks.has(self.stop_event):
            return None
        answer = await self.hooks.fire(self.stop_event, stop_hook_active=self.blocks > 0)
        if not answer.block or self.blocks >= self.limit:
            return None
        self.blocks += 1
        return f"{self.stop_event} hook: {answer.reason or 'keep working'}"


class NotifyingApprover:
    """Notification: the hooks hear that a question waits for the user."""

    def __init__(self, inner: Approver, hooks: ClaudeHooks) -> None:
        self.inner = inner
        self.hooks = hooks

    async def approve(self, request: ApprovalRequest) -> Decision | Denial:
        if self.hooks.has("Notification"):
            await self.hooks.fire("Notification", message=f"Permission needed: {request.summary}")
        return await self.inner.approve(request)


class PreCompactHooks:
    """PreCompact before a requested (`manual`) or prompt-too-long (`auto`) compaction."""

    def __init__(self, inner: Any, hooks: ClaudeHooks) -> None:
        self.inner = inner
        self.hooks = hooks

    async def compact(self, messages: list[Message], focus: str | None, ctx: Any) -> Any:
        await self.hooks.fire("PreCompact", trigger="manual", custom_instructions=focus or "")
        return await self.inner.compact(messages, focus, ctx)

    async def recover(self, messages: list[Message], ctx: Any) -> Any:
        await self.hooks.fire("PreCompact", trigger="auto", custom_instructions="")
        return await self.inner.recover(messages, ctx)
