"""When a due snip happens (README, context compaction): it waits while the cache is warm and
nothing else rewrites the history, rides on a request that rewrites it anyway (micro-compaction,
a cache past its TTL), and happens alone only at `snip_limit`; its marker leaves the head alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_cli.context.pipeline import build_pipeline
from agent_cli.context.results import find_results, is_placeholder
from agent_cli.core.messages import validate_request
from agent_cli.core.settings.schema import ContextSettings
from tests.unit.context.fakes import (
    context_for,
    history,
    make_session,
    prepare,
    request_body,
    run,
    small_settings,
    tool_round,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_a_due_snip_waits_while_the_cache_is_warm_then_happens_alone_at_the_limit(
    tmp_path: Path,
):
    session = make_session(tmp_path)  # snip_trigger 50, snip_limit unset: 100
    stages, _ = build_pipeline(session)
    ctx = context_for(session)
    messages = history(rounds=25, result_chars=10)  # 51 messages, far under every token threshold
    for n in range(24):
        out = run(prepare(stages, messages, ctx))
        assert out is messages  # the cached prefix is kept: no snip yet
        messages = out + tool_round(f"later {n}")
    assert len(messages) == 99
    assert run(prepare(stages, messages, ctx)) is messages
    messages += tool_round("the one that reaches the limit")
    out = run(prepare(stages, messages, ctx))
    assert len(out) == 31  # down to the target, as a snip at the trigger would cut
    assert len(list(session.paths.archive.iterdir())) == 1
    assert out[0] == messages[0]
    assert validate_request(request_body(out)) == []


def test_a_due_snip_rides_on_micro_compaction_one_rewrite_for_both(tmp_path: Path):
    session = make_session(tmp_path)  # micro-compaction past 4,000 tokens
    stages, _ = build_pipeline(session)
    messages = history(rounds=25, result_chars=800)  # 51 messages, ~5,500 tokens
    out = run(prepare(stages, messages, context_for(session)))
    assert len(out) == 31
    assert any(is_placeholder(r.text) for r in find_results(out))
    assert out[0] == messages[0]
    assert validate_request(request_body(out)) == []


def test_a_due_snip_rides_on_a_cold_cache(tmp_path: Path):
    session = make_session(tmp_path)
    stages, compactor = build_pipeline(session)
    clock = compactor.state.clock = Clock()
    ctx = context_for(session)
    messages = history(rounds=25, result_chars=10)
    assert run(prepare(stages, messages, ctx)) is messages
    clock.now += 299  # within the 5-minute TTL: still warm
    messages += tool_round("within the TTL")
    assert run(prepare(stages, messages, ctx)) is messages
    clock.now += 301  # past it: this request writes the whole prefix anyway
    messages += tool_round("after a pause")
    out = run(prepare(stages, messages, ctx))
    assert len(out) == 31
    assert out[0] == messages[0]


def test_the_snip_limit_must_be_above_the_trigger():
    with pytest.raises(ValueError, match="snip_limit must be greater than snip_trigger"):
        ContextSettings(snip_trigger=60, snip_limit=60)
    assert ContextSettings(snip_trigger=60).snip_ceiling == 120
    assert small_settings(snip_limit=70).context.snip_ceiling == 70
