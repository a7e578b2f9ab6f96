"""Token estimates, their calibration against reported usage, and threshold resolution."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_cli.context.tokens import (
    TokenCounter,
    raw_tokens,
    resolve_thresholds,
    text_tokens,
)
from agent_cli.core.errors import ConfigError
from agent_cli.core.settings.schema import ContextSettings, Settings
from agent_cli.model.usage import Usage
from tests.unit.context.fakes import context_for, make_session, user


def test_cjk_counts_more_per_character_than_ascii():
    assert text_tokens("a" * 400) == 100
    assert text_tokens("漢" * 400) == 400


def test_calibration_learns_the_ratio_from_the_previous_request(tmp_path: Path):
    session = make_session(tmp_path)
    counter = TokenCounter(overhead=100)
    sent = [user("x" * 4_000)]  # ~1,000 raw tokens + overhead
    raw = raw_tokens(sent) + 100
    usage = Usage(input_tokens=raw, cache_read_input_tokens=raw)  # the API counted twice as many
    later = [*sent, user("y" * 4_000)]
    counter.calibrate(context_for(session, last_usage=usage, sent=1), later)
    assert counter.ratio == pytest.approx(2.0)
    assert counter.estimate(sent) == pytest.approx(usage.context_tokens, abs=1)
    assert counter.estimate(later) == pytest.approx(2 * (raw_tokens(later) + 100), abs=1)


def test_calibration_uses_each_usage_once_and_skips_a_rewritten_prefix(tmp_path: Path):
    session = make_session(tmp_path)
    counter = TokenCounter()
    usage = Usage(input_tokens=10_000)
    counter.forget(usage)  # the history was rewritten after this request
    counter.calibrate(context_for(session, last_usage=usage, sent=1), [user("short")])
    assert counter.ratio == 1.0
    counter.calibrate(context_for(session, last_usage=Usage(input_tokens=0), sent=1), [user("s")])
    assert counter.ratio == 1.0


def test_thresholds_derive_from_the_model_window():
    settings = Settings(context_windows={"small-model": 100_000}, model="small-model")
    limits = resolve_thresholds(settings)
    assert limits.micro_threshold == 62_000
    assert limits.micro_target == 15_000
    assert limits.summary_threshold == 80_000
    unknown = resolve_thresholds(Settings(model="not-in-the-table"))
    assert unknown.micro_threshold == 124_000  # an unknown model counts as 200,000 tokens


def test_contradicting_thresholds_are_refused():
    with pytest.raises(ConfigError, match="micro_target_tokens"):
        resolve_thresholds(Settings(context=ContextSettings(micro_target_tokens=150_000)))
    with pytest.raises(ConfigError, match="summary_threshold_tokens"):
        resolve_thresholds(Settings(context=ContextSettings(summary_threshold_tokens=50_000)))
    with pytest.raises(ValueError, match="snip_trigger"):
        ContextSettings(snip_trigger=30, snip_target=30)
