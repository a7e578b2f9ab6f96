"""A goal's work between turns: the check after each turn (a command, or a reviewer model
judging the words from evidence alone) and the limits that end the pursuit. Imported when a
goal is first set."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from agent_cli.core.events import ErrorEvent, Event, FilesChanged, TurnEnd
from agent_cli.core.verify_events import GoalChecked
from agent_cli.ext.goals import evaluator
from agent_cli.ext.goals.check_run import run_check
from agent_cli.ext.goals.goal import Goal, Limits, gave_up
from agent_cli.ext.goals.ledger import EvidenceLedger
from agent_cli.ext.goals.settings import goal_settings
from agent_cli.model.client import Final, ModelRequest

if TYPE_CHECKING:
    from agent_cli.core.settings.schema import Settings
    from agent_cli.runtime.runtime import Runtime


def limits_of(
    settings: Settings, turns: int | None, minutes: float | None, flags: bool = False
) -> Limits:
    """`--max-turns` and `--max-minutes` when given, else the settings'; `flags`: set by
    `agent run` (a limit reached names its flag; in chat, the setting and /goal)."""
    goal = goal_settings(settings)
    return Limits(
        max_turns=turns or goal.max_turns,
        max_minutes=minutes or goal.max_minutes,
        max_cost_usd=settings.budget.max_cost_usd,
        flags=flags,
    )


def new_goal(runtime: Runtime, check: str | None, kind: str, limits: Limits | None) -> Goal | None:
    if check is None or not check.strip():
        return None
    limits = limits or limits_of(runtime.settings, None, None)
    goal = Goal(check.strip(), "words" if kind == "words" else "command", limits)
    goal.cost_at_start = runtime.session.priced_usd
    return goal


async def after_turn(
    goal: Goal,
    end: TurnEnd,
    error: ErrorEvent | None,
    runtime: Runtime,
    ledger: EvidenceLedger,
    changed: FilesChanged | None,
) -> list[Event]:
    """The check of a turn that ended (unless it failed or the model gave up), then where the
    goal stands. `changed`: what the turn changed, as its checkpoint told."""
    session = runtime.session
    goal.tick(session.cost_usd)  # None while a model used has no price: the line says n/a
    events: list[Event] = []
    if end.stop == "error":
        budget = error is not None and error.kind == "BudgetExceeded"
        failed = (error.message if error else "") or "the turn ended early"
        goal.end("budget-limited" if budget else "unmet", failed)
    elif (reason := gave_up(end.text)) is not None:
        goal.end("impossible", reason)
    else:
        events += await _check(goal, runtime, ledger, changed)
        goal.tick(session.cost_usd)
        if goal.active and (reached := goal.limit_reached(session.priced_usd)):
            limit, why = reached
            goal.end("budget-limited" if limit == "cost" else "unmet", why)
    return [*events, GoalChecked(goal=goal.status.model_copy())]


async def _check(
    goal: Goal, runtime: Runtime, ledger: EvidenceLedger, changed: FilesChanged | None
) -> list[Event]:
    settings, within = runtime.settings, goal_settings(runtime.settings)
    if goal.kind == "command":
        run = await run_check(goal.check, runtime.options.workspace, settings.sandbox,
                              within.check_timeout_s, within.output_chars)  # fmt: skip
        ledger.record_command(run.command, run.exit_code, run.output)
        goal.record(run.exit_code == 0, run.exit_code, run.output)
        return []
    files = changed.files if changed else []
    diff = await _turn_diff(runtime, changed.checkpoint_id if changed else "")
    evidence = evaluator.evidence_text(goal.check, ledger.since_last_change(), diff, files)
    usage: list[Event] = []
    judged = await _evaluate(runtime, evidence, usage)
    goal.record(judged.verdict == "met", None, "", judged.reason)
    if judged.verdict == "impossible":
        goal.end("impossible", judged.reason)
    return usage


async def _evaluate(runtime: Runtime, evidence: str, usage: list[Event]) -> evaluator.Judgement:
    """The evaluator's one call, no tools; its usage is the session's, told as it ends."""
    session, client = runtime.session, (await runtime.agent()).client
    system, ask = evaluator.request_blocks(evidence)
    request = ModelRequest(model=session.model, system=system, tools=[],
                           messages=[{"role": "user", "content": ask}],
                           max_tokens=1_000, caller=evaluator.CALLER)  # fmt: skip
    sink, session.usage_sink = session.usage_sink, usage.append
    reply = None
    try:
        async for item in client.stream(request):
            if isinstance(item, Final):
                reply = item.reply
        if reply is not None:
            session.account(reply.usage, evaluator.CALLER, reply.model)
    finally:
        session.usage_sink = sink
    return evaluator.judge(reply.text()) if reply else evaluator.Judgement("not met", "no reply")


async def _turn_diff(runtime: Runtime, checkpoint_id: str) -> str:
    """What the turn changed, a diff from its checkpoint as the checkpoints extension tells it
    ("" without one)."""
    checkpoints = runtime.extension("checkpoints") if checkpoint_id else None
    diff = getattr(checkpoints, "turn_diff", None)
    found = await asyncio.to_thread(diff, checkpoint_id) if callable(diff) else ""
    return found if isinstance(found, str) else ""
