"""A ToolContext over a temporary workspace, and a registry with the real policy gate."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.core.tool_contract import ToolContext, ToolResult
from agent_cli.policy.approval import ApprovalRequest, Approver, Decision, HeadlessApprover
from agent_cli.policy.gate import PolicyGate
from agent_cli.policy.hooks import Hooks
from agent_cli.policy.permissions import Permissions
from agent_cli.runtime.assembly import base_tools
from agent_cli.tools.registry import ToolRegistry
from tests.sandbox_support import shell_wrapper
from tests.waiting import wait_until


def unconfined() -> Settings:
    """`sandbox.mode: off`: for a test that expects a bash write to be asked, or tracks the pid
    a command prints (inside the sandbox that is the pid namespace's)."""
    return Settings.model_validate({"sandbox": {"mode": "off"}})


def make_ctx(workspace: Path, settings: Settings | None = None) -> ToolContext:
    return ToolContext(
        workspace=workspace,
        paths=Paths(workspace),
        session_id="test-session",
        settings=settings or Settings(),
    )


class ScriptedApprover:
    """Answers every question with `answer` and remembers the questions."""

    def __init__(self, answer: Decision) -> None:
        self.answer = answer
        self.asked: list[ApprovalRequest] = []

    async def approve(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return self.answer


_approver_checked: type[Approver] = ScriptedApprover  # mypy: the fake is an Approver


def gated_registry(
    ctx: ToolContext, mode: str = "default", approver: Approver | None = None, **perms: Any
) -> ToolRegistry:
    sandbox = ctx.settings.sandbox.model_dump()  # the ctx's sandbox is kept
    settings = Settings.model_validate({"permissions": {"mode": mode, **perms}, "sandbox": sandbox})
    ctx.settings = settings
    permissions = Permissions(settings.permissions, approver or HeadlessApprover())
    hooks = Hooks(settings.hooks, ctx.session_id, ctx.workspace)
    return ToolRegistry(base_tools(shell_wrapper=shell_wrapper), PolicyGate(permissions, hooks))


def call(registry: ToolRegistry, ctx: ToolContext, name: str, **args: Any) -> ToolResult:
    return asyncio.run(registry.dispatch(name, args, ctx, call_id=f"call-{name}"))


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def running(pid: int, grace_s: float = 2.0) -> bool:
    """Still alive (not a zombie) after `grace_s`: SIGKILL is delivered asynchronously, so a
    process killed a moment ago may not have died yet (an orphan killed in a container may
    also wait long to be reaped, hence zombies count as dead)."""
    try:
        wait_until(lambda: not _alive(pid), grace_s)
    except AssertionError:
        return True
    return False
