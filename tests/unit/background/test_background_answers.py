"""What a background session waits on, answered as the attach side will answer it (the
session's socket's requests, here without the socket): a question and a plan wait as an
approval does, the record says which, a wrong answer is refused and the right one goes on."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.asking import Answer, Option, PlanDecisionResult, Question
from agent_cli.ext.background import registry
from agent_cli.ext.background.answering import Waiting
from agent_cli.ext.background.status import Status
from tests.waiting import until

QUESTION = Question(
    question="Which database?",
    header="Database",
    options=[Option(label="sqlite"), Option(label="pg")],
)


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    path = registry.folder() / "s.json"
    registry.update(path, name="s", state="working")
    return path


def state(path: Path) -> str:
    found = registry.read(path)
    assert found is not None
    return found.state


async def answered(
    path: Path, waiting: Waiting, ask: Any, wrong: dict[str, Any], right: dict[str, Any]
) -> Any:
    task = asyncio.ensure_future(ask)
    await until(lambda: waiting.asked, what="the question held")
    kind = waiting.asked[0].kind
    assert state(path) == f"waiting: {kind}"
    assert waiting.reply({"op": "pending"})["pending"][0]["kind"] == kind
    refused = waiting.reply({"op": "answer", **wrong})
    assert refused["ok"] is False
    assert refused["error"].startswith(f"not an answer to the waiting {kind}")
    assert waiting.reply({"op": "answer", **right}) == {"ok": True}
    result = await task
    assert state(path) == "working"
    assert waiting.reply({"op": "answer", **right})["error"] == "nothing is waiting for an answer"
    return result


def test_a_question_waits_for_its_answers(record: Path):
    waiting = Waiting(Status(record, io.StringIO()))
    right = {"answers": [{"question": "Which database?", "chosen": ["pg"]}]}
    got = asyncio.run(
        answered(record, waiting, waiting.ask([QUESTION]), {"decision": "allow"}, right)
    )
    assert got == [Answer(question="Which database?", chosen=["pg"])]


def test_a_plan_waits_for_its_decision(record: Path):
    waiting = Waiting(Status(record, io.StringIO()))
    right = {"plan": {"choice": "keep_planning", "feedback": "smaller steps"}}
    ask = waiting.present_plan("# Plan\n1. do it", "default")
    got = asyncio.run(answered(record, waiting, ask, {"plan": {"choice": "maybe"}}, right))
    assert got == PlanDecisionResult(choice="keep_planning", feedback="smaller steps")


def test_the_first_answer_to_an_approval_wins_and_listeners_hear_it_held(record: Path):
    """Two attached clients answer the same approval: the first decides, the second is
    refused; an attached client hears of the approval as it is held (acp_session.Hub)."""
    from agent_cli.policy.approval import ApprovalRequest

    waiting = Waiting(Status(record, io.StringIO()))
    heard: list[str] = []
    waiting.listeners.append(lambda item: heard.append(item.asked.summary))
    request = ApprovalRequest("bash", "bash rm -r build", "bash(rm *)", "", call_id="c1")

    async def two_answers() -> Any:
        task = asyncio.ensure_future(waiting.approve(request))
        await until(lambda: waiting.asked, what="the approval held")
        (item,) = waiting.asked
        assert (waiting.resolve(item, "deny"), waiting.resolve(item, "allow")) == (True, False)
        return await task

    assert asyncio.run(two_answers()) == "deny"
    assert heard == ["bash rm -r build"]
    assert state(record) == "working"
