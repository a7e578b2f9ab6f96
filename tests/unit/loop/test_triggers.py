"""When the loop compacts and when a budget stops it, in process against the fake model: a
prompt too long is compacted once and retried, the `compact` tool's request is carried out
once the round is answered, a stage rewrites history before each request, and a request that
would pass `--max-cost` is never sent. The compactor here records what it is asked and
answers with a short history; what the real one writes is tests/unit/context's."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_cli.context.ports import Compacted, Compactor, StageContext
from agent_cli.core.errors import TOO_LONG_HINT
from agent_cli.core.events import CompactionDone, ErrorEvent, Event, TurnEnd
from agent_cli.core.messages import Message
from tests.e2e.agents import bypass, collect, make_agent
from tests.fake_model import FakeAnthropic

pytestmark = pytest.mark.usefixtures("sdk_env")
SUMMARY = "Summary: the user asked for a file; it was read."


class ShortCompactor:
    """Every compaction keeps the last exchange (a tool_use with its results, or the last
    message) behind a summary, roles alternating."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str | None, int]] = []  # (how, focus, messages given)

    def _short(self, messages: list[Message], stage: str) -> Compacted:
        results = messages[-1]["content"][0].get("type") == "tool_result"
        tail = messages[-2:] if results else messages[-1:]
        head: list[Message] = [{"role": "user", "content": [{"type": "text", "text": SUMMARY}]}]
        if tail[0]["role"] == "user":
            head.append({"role": "assistant", "content": [{"type": "text", "text": "Understood."}]})
        kept = [*head, *tail]
        return Compacted(messages=kept, stage=stage, tokens_before=9, tokens_after=3)

    async def compact(
        self, messages: list[Message], focus: str | None, ctx: StageContext
    ) -> Compacted | None:
        self.asked.append(("compact", focus, len(messages)))
        return self._short(messages, "compact")

    async def recover(self, messages: list[Message], ctx: StageContext) -> Compacted | None:
        self.asked.append(("recover", None, len(messages)))
        return self._short(messages, "reactive")


_checked: type[Compactor] = ShortCompactor


def first_texts(body: dict) -> list[str]:
    return [b["text"] for b in body["messages"][0]["content"] if b["type"] == "text"]


def test_prompt_too_long_is_compacted_once_and_retried(fake_model: FakeAnthropic, tmp_path: Path):
    fake_model.script.prompt_too_long().text("fits now")
    agent = make_agent(tmp_path, bypass())
    agent.compactor = compactor = ShortCompactor()
    events = asyncio.run(collect(agent, "a long story"))
    assert compactor.asked == [("recover", None, 1)]
    (done,) = [e for e in events if isinstance(e, CompactionDone)]
    assert (done.stage, done.messages_before, done.messages_after) == ("reactive", 1, 3)
    _too_long, retried = fake_model.bodies()
    assert first_texts(retried)[0] == SUMMARY
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].text == "fits now"


def test_prompt_too_long_again_after_compacting_is_the_error(
    fake_model: FakeAnthropic, tmp_path: Path
):
    fake_model.script.prompt_too_long().prompt_too_long()
    agent = make_agent(tmp_path, bypass())
    agent.compactor = compactor = ShortCompactor()
    events = asyncio.run(collect(agent, "far too long"))
    assert [how for how, _, _ in compactor.asked] == ["recover"]  # once per request (§8)
    (error,) = [e for e in events if isinstance(e, ErrorEvent)]
    assert error.kind == "PromptTooLongError"
    assert TOO_LONG_HINT in error.message
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].stop == "error"
    assert len(fake_model.bodies()) == 2


def test_without_a_compactor_prompt_too_long_says_what_to_do(
    fake_model: FakeAnthropic, tmp_path: Path
):
    fake_model.script.prompt_too_long()
    agent = make_agent(tmp_path, bypass())
    agent.compactor = None
    events = asyncio.run(collect(agent, "far too long"))
    (error,) = [e for e in events if isinstance(e, ErrorEvent)]
    assert TOO_LONG_HINT in error.message
    assert len(fake_model.bodies()) == 1


def test_the_compact_tool_compacts_after_its_round(fake_model: FakeAnthropic, tmp_path: Path):
    (tmp_path / "a.txt").write_text("a")
    fake_model.script.tool_uses(
        ("read_file", {"path": "a.txt"}), ("compact", {"focus": "the file"})
    ).text("carrying on")
    agent = make_agent(tmp_path, bypass())
    agent.compactor = compactor = ShortCompactor()
    events = asyncio.run(collect(agent, "read then compact"))
    # the round's results are stored first (user, assistant, results), then it is compacted
    assert compactor.asked == [("compact", "the file", 3)]
    kinds = [e.type for e in events]
    assert kinds.index("compaction") > max(i for i, k in enumerate(kinds) if k == "tool_end")
    second = fake_model.bodies()[1]
    assert first_texts(second)[0] == SUMMARY
    assert second["messages"][-1]["content"][0]["type"] == "tool_result"  # results kept


def test_compact_now_between_turns(fake_model: FakeAnthropic, tmp_path: Path):
    fake_model.script.text("first answer").text("second answer")
    agent = make_agent(tmp_path, bypass())
    agent.compactor = compactor = ShortCompactor()

    async def go() -> list[Event]:
        try:
            _ = [e async for e in agent.run_turn("first")]
            compacted = [e async for e in agent.compact_now("keep names")]
            _ = [e async for e in agent.run_turn("second")]
            return compacted
        finally:
            await agent.client.close()

    compacted = asyncio.run(go())
    assert compactor.asked == [("compact", "keep names", 2)]
    assert [e.type for e in compacted] == ["compaction"]
    assert first_texts(fake_model.bodies()[1])[0] == SUMMARY


def test_a_request_past_the_budget_is_never_sent(fake_model: FakeAnthropic, tmp_path: Path):
    (tmp_path / "a.txt").write_text("a")
    usage = {"input_tokens": 1_000_000, "output_tokens": 10}  # $3 at claude-sonnet-4-5's price
    fake_model.script.tool_use("read_file", path="a.txt", usage=usage).text("never sent")
    settings = bypass(model="claude-sonnet-4-5", budget={"max_cost_usd": 0.5})
    agent = make_agent(tmp_path, settings)
    events = asyncio.run(collect(agent, "go"))
    assert len(fake_model.bodies()) == 1  # the first fitted; the second would pass $0.50
    (error,) = [e for e in events if isinstance(e, ErrorEvent)]
    assert error.kind == "BudgetExceeded"
    assert "--max-cost 0.5" in error.message
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].stop == "error"
    assert agent.session.messages[-1]["content"][0]["type"] == "tool_result"
