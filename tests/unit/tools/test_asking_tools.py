"""ask_user and present_plan in process: the input shape is enforced, the ports answer, the
events tell the front ends, and every presented plan is kept."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent_cli.core.asking import NOBODY_TO_ASK, Answer, PlanDecisionResult, Question
from agent_cli.core.events import Answered, Event, PlanDecided, PlanPresented, QuestionAsked
from agent_cli.core.settings.schema import Settings
from agent_cli.tools.ask_user import AskUser
from agent_cli.tools.present_plan import PresentPlan, saved_plans
from agent_cli.tools.registry import ToolRegistry
from tests.unit.tool_helpers import make_ctx


def question(**over: Any) -> dict[str, Any]:
    base = {
        "question": "Which database?",
        "header": "Database",
        "options": [{"label": "sqlite"}, {"label": "postgres", "description": "a server"}],
    }
    return {**base, **over}


def test_ask_user_refuses_every_shape_outside_the_contract(tmp_path: Path):
    ctx = make_ctx(tmp_path)
    registry = ToolRegistry([AskUser()])
    bad = {
        "no question": [],
        "five questions": [question()] * 5,
        "one option": [question(options=[{"label": "a"}])],
        "five options": [question(options=[{"label": str(i)} for i in range(5)])],
        "long header": [question(header="thirteen char")],
        "unknown field": [question(extra=1)],
    }
    for why, questions in bad.items():
        result = asyncio.run(registry.dispatch("ask_user", {"questions": questions}, ctx))
        assert result.is_error, why
        assert "Invalid arguments for ask_user" in result.content, why


def test_ask_user_headless_tells_the_model_to_decide(tmp_path: Path):
    ctx = make_ctx(tmp_path)
    events: list[Event] = []
    ctx.emit = events.append
    raw = {"questions": [question(header="twelve chars", multi_select=True)]}
    result = asyncio.run(ToolRegistry([AskUser()]).dispatch("ask_user", raw, ctx, "c1"))
    assert not result.is_error
    assert result.content == NOBODY_TO_ASK
    assert [type(e) for e in events] == [QuestionAsked, Answered]
    assert isinstance(events[1], Answered)
    assert events[1].nobody
    assert events[1].id == "c1"


def test_ask_user_result_lists_labels_typed_text_and_declines(tmp_path: Path):
    ctx = make_ctx(tmp_path)
    seen: list[list[Question]] = []

    async def user(questions: list[Question]) -> list[Answer]:
        seen.append(questions)
        return [
            Answer(question=questions[0].question, chosen=["sqlite", "postgres"]),
            Answer(question=questions[1].question, typed="use duckdb"),
            Answer(question=questions[2].question, declined=True),
        ]

    ctx.ask = user
    raw = {"questions": [question(multi_select=True), question(question="Name?"), question()]}
    result = asyncio.run(ToolRegistry([AskUser()]).dispatch("ask_user", raw, ctx))
    assert seen[0][0].multi_select
    assert seen[0][1].question == "Name?"
    assert result.content.splitlines() == [
        "Q: Which database?",
        "A: sqlite; postgres",
        "Q: Name?",
        "A: use duckdb",
        "Q: Which database?",
        "A: (the user declined to answer)",
    ]
    assert result.summary == "ask_user (2 answered, 1 declined)"  # a decline is no answer


def test_ask_user_summary_counts_only_answers(tmp_path: Path):
    ctx = make_ctx(tmp_path)

    async def declines_all(questions: list[Question]) -> list[Answer]:
        return [Answer(question=q.question, declined=True) for q in questions]

    async def answers_all(questions: list[Question]) -> list[Answer]:
        return [Answer(question=q.question, chosen=["sqlite"]) for q in questions]

    raw = {"questions": [question(), question(question="Name?")]}
    for user, said in ((declines_all, "(2 declined)"), (answers_all, "(2 answered)")):
        ctx.ask = user
        result = asyncio.run(ToolRegistry([AskUser()]).dispatch("ask_user", raw, ctx))
        assert result.summary == f"ask_user {said}"


def test_present_plan_only_in_plan_mode_and_every_plan_is_kept(tmp_path: Path):
    ctx = make_ctx(tmp_path)
    registry = ToolRegistry([PresentPlan()])
    refused = asyncio.run(registry.dispatch("present_plan", {"plan": "# p"}, ctx))
    assert refused.is_error
    assert "plan mode only" in refused.content
    assert saved_plans(ctx.paths) == []

    ctx.settings = Settings.model_validate({"permissions": {"mode": "plan"}})
    events: list[Event] = []
    ctx.emit = events.append

    async def keep_planning(plan: str) -> PlanDecisionResult:
        return PlanDecisionResult(choice="keep_planning", feedback="split step 2")

    ctx.present_plan = keep_planning
    first = asyncio.run(registry.dispatch("present_plan", {"plan": "# one\n- a"}, ctx, "p1"))
    assert "split step 2" in first.content
    assert not first.is_error
    second = asyncio.run(registry.dispatch("present_plan", {"plan": "# two"}, ctx, "p2"))
    assert "keep planning" in second.content
    kept = saved_plans(ctx.paths)
    assert [p.name for p in kept] == ["test-session-1.md", "test-session-2.md"]
    assert kept[0].read_text() == "# one\n- a\n"
    presented = [e for e in events if isinstance(e, PlanPresented)]
    assert [e.path for e in presented] == [str(p) for p in kept]
    decided = [e for e in events if isinstance(e, PlanDecided)]
    assert [(e.id, e.choice) for e in decided] == [("p1", "keep_planning"), ("p2", "keep_planning")]
    # the plans folder is a state folder: never committed
    assert (kept[0].parent / ".gitignore").read_text().strip() == "*"
