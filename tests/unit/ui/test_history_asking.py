"""A resumed session redraws what was asked (issue 32): a presented plan whole with what became
of it, ask_user's questions and answers, and the boundary a fresh context left."""

from __future__ import annotations

from pathlib import Path

from agent_cli.session.resume import Boundary, RestoredSession
from agent_cli.ui.render.history import history_lines

PLAN = "# Cap the back-off\n\n1. `backoff()` returns at most 8 s"


def test_a_plan_its_decision_questions_and_a_fresh_start_are_redrawn(tmp_path: Path):
    restored = RestoredSession(id="s-1", path=tmp_path / "s-1.jsonl", started="2026-01-01T12:00:00")
    ask = {"questions": [{"question": "Where from?", "header": "Cap", "options": []}]}
    restored.history = [
        {"role": "user", "content": "plan the cap"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "q1", "name": "ask_user", "input": ask},
            {"type": "tool_use", "id": "p1", "name": "present_plan", "input": {"plan": PLAN}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "q1",
             "content": "Q: Where from?\nA: a constant"},
            {"type": "tool_result", "tool_use_id": "p1",
             "content": "The user approved the plan: implement it now, step by step."},
        ]},
        Boundary("fresh_context", 3),
        {"role": "user", "content": "You start in a fresh context window ..."},
    ]  # fmt: skip
    text = "\n".join(history_lines(restored, 80, color=False))
    order = [
        "you> plan the cap",
        "A: a constant",
        "Cap the back-off",
        "backoff() returns at most 8 s",
        "The user approved the plan",
        "⇣ a fresh context from the approved plan: 3 messages before",
    ]
    positions = [text.index(part) for part in order]
    assert positions == sorted(positions)
