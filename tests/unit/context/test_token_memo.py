from __future__ import annotations

from typing import Any

from agent_cli.context.tokens import TokenCounter, message_tokens, value_tokens


def test_estimates_follow_the_message_object_not_a_stale_memo():
    big = {"role": "user", "content": [{"type": "text", "text": "x" * 4_000}]}
    first = message_tokens(big)
    assert first == value_tokens(big["content"]) + 4
    assert message_tokens(big) == first  # the memo answers for the same object
    small = {**big, "content": [{"type": "text", "text": "short"}]}  # copy-on-write, as stages do
    assert message_tokens(small) < first
    assert message_tokens(big) == first


def test_memo_survives_many_messages_without_mixing_them_up():
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "y" * n}]} for n in range(1, 1500)
    ]
    estimates = [message_tokens(m) for m in messages]
    assert estimates == [value_tokens(m["content"]) + 4 for m in messages]


def test_a_growing_history_is_estimated_as_a_fresh_count_would_also_after_a_rewrite():
    # the counter sums from what the previous call summed: a longer list, a prefix of it (the
    # calibration's), a message rewritten in the middle and another history all answer afresh
    def whole(messages: list[dict[str, Any]]) -> int:
        return sum(value_tokens(m["content"]) + 4 for m in messages)

    history: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "z" * n}]} for n in (5, 900)
    ]
    counter, fresh = TokenCounter(), TokenCounter()
    for n in range(3, 9):
        history = [*history, {"role": "user", "content": [{"type": "text", "text": "w" * n * 97}]}]
        assert counter.estimate(history) == whole(history)
        assert counter.estimate(history[:2]) == whole(history[:2])
    snipped: dict[str, Any] = {"role": "user", "content": "snipped"}
    rewritten = [history[0], snipped, *history[2:]]
    assert counter.estimate(rewritten) == whole(rewritten) == fresh.estimate(rewritten)
    assert counter.estimate(history) == whole(history)
    assert counter.estimate(history[3:]) == whole(history[3:])
