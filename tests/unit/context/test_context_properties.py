"""Property tests: generated sessions (text turns, tool rounds with several calls, huge and tiny
results, unseen last batches, interrupts, resumes, compaction on request, prompt-too-long) run
through the whole pipeline with small thresholds; every output must satisfy SPEC §16 and keep the
invariants of §8. The CI profile runs 2,500 examples per test (see tests/conftest.py)."""

from __future__ import annotations

import asyncio
import itertools
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from agent_cli.context.budget import newest_batch
from agent_cli.context.micro import plan_micro
from agent_cli.context.pipeline import build_pipeline
from agent_cli.context.results import find_results, is_placeholder
from agent_cli.context.snip import MARKER_PREFIX, plan_snip, snipped, without_marker
from agent_cli.context.state import request_visible
from agent_cli.context.tokens import TokenCounter
from agent_cli.core import history as hist
from agent_cli.core.messages import Message, validate_request
from agent_cli.core.settings.schema import ContextSettings, Settings
from tests.unit.context.fakes import FakeClient, context_for, make_session, request_body


def actions(*sizes: int) -> st.SearchStrategy[tuple[str, Any]]:
    """One step of a session; results and texts take one of `sizes` characters."""
    size = st.sampled_from(sizes)
    round_ = st.lists(st.tuples(size, st.booleans()), min_size=1, max_size=3)
    return st.one_of(
        st.tuples(st.just("round"), round_),
        st.tuples(st.just("interrupt"), round_),
        st.tuples(st.just("answer"), size),
        st.tuples(st.just("request"), size),
        st.tuples(st.just("resume"), st.none()),
        st.tuples(st.just("compact"), st.none()),
        st.tuples(st.just("overflow"), st.none()),
    )


ACTION = actions(1, 15, 300, 1_500, 6_000, 20_000)  # tiny to huge, for the whole pipeline
SHAPE = actions(1, 15, 300, 1_500)  # where only the shape of a history matters
SETTINGS = st.builds(
    lambda trigger, gap, micro, target_share, budget: Settings(
        context=ContextSettings(
            snip_trigger=trigger,
            snip_target=max(2, trigger - gap),
            micro_threshold_tokens=micro,
            micro_target_tokens=max(500, int(micro * target_share)),
            summary_threshold_tokens=micro * 2,
            result_budget_chars=budget,
        ),
        tool_preview_chars=200,
    ),
    st.integers(6, 24),
    st.integers(2, 12),
    st.integers(1_200, 6_000),
    st.floats(0.2, 0.6),
    st.integers(1_000, 30_000),
)


@dataclass
class Sim:
    """A session as the loop would grow it; `originals` maps each tool_use id to its result."""

    messages: list[Message] = field(default_factory=list)
    request: str = "request-0"
    originals: dict[str, str] = field(default_factory=dict)
    ids: Any = field(default_factory=lambda: itertools.count(1))

    def __post_init__(self) -> None:
        self.messages = [hist.user_text(self.request)]

    def ends_with_user(self) -> bool:
        return self.messages[-1]["role"] == "user"

    def apply(self, kind: str, arg: Any) -> None:
        if not self.ends_with_user() or kind == "request":
            self._request(arg if isinstance(arg, int) else 10)
        elif kind in ("round", "interrupt"):
            self._round(arg, interrupted=kind == "interrupt")
        elif kind == "answer":
            self.messages.append({"role": "assistant", "content": [_text("answer", arg)]})
        elif kind == "resume":  # through JSON and the resume repair, as a transcript would
            self.messages = hist.repair(json.loads(json.dumps(self.messages)))

    def _request(self, size: int) -> None:
        self.request = f"request-{next(self.ids)}-" + "q" * min(size, 500)
        self.messages.append(hist.user_text(self.request))
        self.messages = hist.repair(self.messages)

    def _round(self, spec: list[tuple[int, bool]], interrupted: bool) -> None:
        ids = [f"toolu_{next(self.ids):06d}" for _ in spec]
        calls = [{"type": "tool_use", "id": i, "name": "read_file", "input": {}} for i in ids]
        self.messages.append({"role": "assistant", "content": calls})
        results = []
        for tool_id, (size, error) in zip(ids, spec, strict=True):
            text = hist.INTERRUPTED if interrupted else f"out-{tool_id}-" + "r" * size
            self.originals[tool_id] = text
            results.append(hist.tool_result_block(tool_id, text, error or interrupted))
        self.messages.append({"role": "user", "content": results})


def _text(label: str, size: int) -> dict[str, str]:
    return {"type": "text", "text": f"{label}-" + "t" * size}


def check(sim: Sim, before: list[Message], out: list[Message], folder: Path) -> None:
    assert validate_request(request_body(out)) == [], out
    assert request_visible(sim.request, out)
    unseen = {r.tool_use_id for r in newest_batch(before)}
    for ref in find_results(out):
        original = sim.originals[ref.tool_use_id]
        if ref.text == original:
            continue
        if is_placeholder(ref.text):
            assert ref.tool_use_id not in unseen, "an unseen result became a placeholder"
            path = Path(ref.text.removeprefix("[Earlier tool result saved at ")[:-1])
        else:  # a preview: the beginning, then the saved path
            assert ref.text.startswith(original[:60]), ref.text[:100]
            path = Path(ref.text.rsplit("saved at ", 1)[1].split(" (open", 1)[0])
        assert path.parent == folder
        assert path.read_text() == original


async def _session(settings: Settings, actions: list[Any], failures: list[bool]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        sim = Sim()
        session = make_session(Path(tmp), settings, request=sim.request)
        stages, compactor = build_pipeline(session)
        client = FakeClient([RuntimeError("down") if f else "SUMMARY" for f in failures])
        ctx = context_for(session, client)
        folder = session.paths.tool_results(session.id)
        for kind, arg in actions:
            sim.apply(kind, arg)
            session.current_request = sim.request
            compacted = None
            if kind == "compact":
                compacted = await compactor.compact(sim.messages, "focus", ctx)
            elif kind == "overflow" and sim.ends_with_user():
                compacted = await compactor.recover(sim.messages, ctx)
            if compacted is not None:
                event(f"compaction: {compacted.stage}")
                check(sim, sim.messages, compacted.messages, folder)
                sim.messages = compacted.messages
            if sim.ends_with_user():  # a request is about to go out
                before = sim.messages
                for stage in stages:
                    done = await stage.apply(sim.messages, ctx)
                    if done is not None:
                        event(f"compaction: {done.stage}")
                        check(sim, before, done.messages, folder)
                        sim.messages = done.messages


@pytest.mark.timeout(180)  # 2,500 whole sessions under the CI profile
@given(SETTINGS, st.lists(ACTION, max_size=24), st.lists(st.booleans(), max_size=6))
def test_every_pipeline_output_is_a_valid_request(
    settings: Settings, actions: list[Any], failures: list[bool]
) -> None:
    asyncio.run(_session(settings, actions, failures))


def grown(actions: list[Any]) -> Sim:
    sim = Sim()
    for kind, arg in actions:
        if kind not in ("compact", "overflow"):
            sim.apply(kind, arg)
    return sim


@pytest.fixture(scope="module")
def quiet_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One state dir for every example: nothing may ever be written into it."""
    return tmp_path_factory.mktemp("unchanged")


@given(actions=st.lists(SHAPE, max_size=24))
def test_a_history_under_every_threshold_goes_out_unchanged(
    quiet_dir: Path, actions: list[Any]
) -> None:
    sim = grown(actions)
    messages = sim.messages
    estimate = TokenCounter().estimate(messages)
    settings = Settings(
        context=ContextSettings(
            snip_trigger=max(4, len(messages) + 1),
            snip_target=2,
            micro_threshold_tokens=max(1_000, estimate + 1),
            micro_target_tokens=500,
            summary_threshold_tokens=max(1_000, estimate + 1),
            result_budget_chars=max(1_000, sum(len(r.text) for r in newest_batch(messages)) + 1),
        )
    )
    session = make_session(quiet_dir, settings, request=sim.request)
    session.transcript = None
    stages, _ = build_pipeline(session)
    client = FakeClient()
    ctx = context_for(session, client)

    async def each_stage() -> list[Any]:
        return [await stage.apply(messages, ctx) for stage in stages]

    assert asyncio.run(each_stage()) == [None] * len(stages)
    assert client.requests == []
    assert not [p for p in quiet_dir.rglob("*") if p.is_file()]


@given(st.lists(SHAPE, max_size=30), st.integers(4, 30), st.integers(2, 28))
def test_a_snip_keeps_pairs_head_and_everything_else_in_order(
    actions: list[Any], trigger: int, target: int
) -> None:
    sim = grown(actions)
    messages = sim.messages
    plan = plan_snip(messages, trigger, min(target, trigger - 1))
    if plan is None:
        return
    out = snipped(messages, plan, Path("/state/archive/s-1.jsonl"), sim.request)
    assert validate_request(request_body(out)) == []
    assert len(out) <= min(target, trigger - 1) + 1
    unmarked = [{**m, "content": without_marker(m["content"])} for m in out[1:]]
    assert unmarked == messages[plan.tail :]
    if any(m["role"] == "user" for m in out[1:]):  # before a request, the last message is one
        assert out[0] == messages[0]  # the cached head is not rewritten
    else:
        assert out[0]["content"][0] == messages[0]["content"][0]
    assert sum(MARKER_PREFIX in json.dumps(m) for m in out) == 1
    assert request_visible(sim.request, out)


@given(st.lists(SHAPE, max_size=30), st.integers(0, 40_000), st.integers(0, 5))
def test_micro_only_replaces_old_seen_results_oldest_first(
    actions: list[Any], excess: int, keep: int
) -> None:
    refs = find_results(grown(actions).messages)
    whole = [r for r in refs if not is_placeholder(r.text)]
    seen = [r for r in whole if r.seen]
    newest = whole[max(0, len(whole) - keep) :] if keep else []  # unseen ones count among them
    plan = plan_micro(refs, excess, keep, cost=lambda text: len(text) // 4)
    assert all(r.seen for r in plan)
    assert not set(plan) & set(newest)
    positions = [seen.index(r) for r in plan]
    assert positions == sorted(positions)
    if excess == 0:
        assert plan == []
