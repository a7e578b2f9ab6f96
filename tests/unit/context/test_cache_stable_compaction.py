"""Compaction rewrites the cached prefix at most once per cause: when micro-compaction has to
rewrite already-sent results, the snip that would have followed a few rounds later happens in
the same request, so the requests between stay prefix-stable (issue 53, bench/context.py)."""

from __future__ import annotations

from pathlib import Path

from agent_cli.context.pipeline import build_pipeline
from agent_cli.context.snip import MARKER_PREFIX
from tests.unit.context.fakes import (
    context_for,
    history,
    make_session,
    prepare,
    run,
    small_settings,
    tool_round,
)


def snipped(messages: list[dict]) -> bool:
    return any(str(b.get("text", "")).startswith(MARKER_PREFIX) for b in messages[0]["content"])


def test_micro_compaction_takes_the_snip_due_later_with_it(tmp_path: Path):
    # 25 messages: under the snip trigger (50), over its target (10); ~5k tokens > micro's 4k
    session = make_session(tmp_path, small_settings(snip_trigger=50, snip_target=10))
    stages, _ = build_pipeline(session)
    messages = history(rounds=12, result_chars=1_500)
    first = run(prepare(stages, messages, context_for(session)))
    assert snipped(first), "the snip should come with the micro-compaction's rewrite"
    assert len(first) <= 11
    sent = first
    for n in range(12):  # rounds grow the history again, still under the snip trigger
        grown = sent + tool_round(f"later {n} " + "y" * 100)
        out = run(prepare(stages, grown, context_for(session)))
        assert out[: len(sent)] == sent, f"round {n}: the cached prefix was rewritten"
        sent = out


def test_no_early_snip_when_nothing_else_rewrites(tmp_path: Path):
    session = make_session(tmp_path, small_settings(snip_trigger=50, snip_target=10))
    stages, _ = build_pipeline(session)
    messages = history(rounds=12, result_chars=50)  # far under the micro threshold
    out = run(prepare(stages, messages, context_for(session)))
    assert out is messages
