"""present_plan: in plan mode, the model hands its plan over for approval (SPEC §5). Every plan
is kept as `.agent/plans/<session>-<n>.md`; the front end's `ToolContext.present_plan` port
decides (headless: the plan is the run's result and the run ends)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import Field

from agent_cli.core.asking import PlanDecisionResult
from agent_cli.core.events import PlanDecided, PlanPresented
from agent_cli.core.files.paths import Paths, ensure_state_folder
from agent_cli.core.text.counts import counted
from agent_cli.core.tool_contract import (
    AnyTool,
    Tool,
    ToolContext,
    ToolInput,
    ToolResult,
    current_call_id,
)
from agent_cli.tools.ask_user import AskUser
from agent_cli.tools.registry import ToolSource

NAME = "present_plan"
_ANSWERS = {
    "implement": "The user approved the plan: implement it now, step by step.",
    "fresh": "The user approved the plan: implement it now, step by step.",
    "handed_over": "The plan was handed over as the run's result; the run ends here.",
}


def plans_folder(paths: Paths) -> Path:
    return paths.state_dir / ".agent" / "plans"


def saved_plans(paths: Paths) -> list[Path]:
    """Every kept plan, oldest first."""
    folder = plans_folder(paths)
    found = folder.glob("*.md") if folder.is_dir() else iter(())
    return sorted(found, key=lambda p: (p.stat().st_mtime, p.name))


def keep_plan(paths: Paths, session_id: str, plan: str) -> Path:
    folder = ensure_state_folder(plans_folder(paths))
    n = len(list(folder.glob(f"{session_id}-*.md"))) + 1
    path = folder / f"{session_id}-{n}.md"
    path.write_text(plan.rstrip("\n") + "\n", encoding="utf-8")
    return path


class PresentPlanInput(ToolInput):
    plan: str = Field(min_length=1, description="The plan, in markdown.")


class PresentPlan(Tool[PresentPlanInput]):
    name = NAME
    input_model = PresentPlanInput
    # plan mode runs read-only tools only, and this is its way out
    read_only = True

    def describe_call(self, args: PresentPlanInput) -> str:
        return f"present_plan ({counted(len(args.plan.splitlines()), 'line')})"

    async def run(self, args: PresentPlanInput, ctx: ToolContext) -> ToolResult:
        if ctx.settings.permissions.mode != "plan":
            return ToolResult(
                "present_plan is for plan mode only; the session is not in plan mode.",
                is_error=True,
                summary="present_plan: not in plan mode",
            )
        call_id = current_call_id.get() or "call"
        try:
            path = str(keep_plan(ctx.paths, ctx.session_id, args.plan))
        except OSError:
            path = ""  # a full disk: the plan is still presented
        ctx.emit(PlanPresented(id=call_id, plan=args.plan, path=path))
        decision = await ctx.present_plan(args.plan)
        ctx.emit(PlanDecided(id=call_id, choice=decision.choice, feedback=decision.feedback))
        return ToolResult(_result_text(decision), summary=f"present_plan: {decision.choice}")


def asking_tools() -> list[AnyTool]:
    """ask_user, in every mode (present_plan comes and goes with plan mode: PlanModeTools)."""
    return [AskUser()]


class PlanModeTools:
    """The tools that follow the permission mode, offered before another source's (the MCP
    servers'): present_plan while the session is in plan mode, however it got there (at
    start, Shift-Tab, /plan)."""

    def __init__(self, mode: Callable[[], str], inner: ToolSource | None = None) -> None:
        self._mode, self.inner, self._plan = mode, inner, PresentPlan()

    def offered(self) -> list[AnyTool]:
        mine: list[AnyTool] = [self._plan] if self._mode() == "plan" else []
        return [*mine, *(self.inner.offered() if self.inner is not None else [])]

    async def aclose(self) -> None:
        if self.inner is not None:
            await self.inner.aclose()


def _result_text(decision: PlanDecisionResult) -> str:
    if decision.choice == "keep_planning":
        feedback = decision.feedback.strip() or "(no feedback given)"
        return (
            "The user wants you to keep planning (plan mode stays on). Their feedback:\n"
            f"{feedback}\nRevise the plan and present it again."
        )
    return _ANSWERS[decision.choice]
