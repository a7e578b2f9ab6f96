from __future__ import annotations

from agent_cli.context.tokens import message_tokens, value_tokens


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
