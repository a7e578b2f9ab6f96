"""The trigger rules: pure functions, no model."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from agent_cli.core.image_rules import without_images
from agent_cli.core.messages import Message
from agent_cli.core.payloads import TodoItem
from agent_cli.core.settings.features import MemorySettings
from agent_cli.memory import triggers

OPEN = [TodoItem(content="a", status="completed"), TodoItem(content="b", status="in_progress")]
DONE = [TodoItem(content="a", status="completed"), TodoItem(content="b", status="completed")]


def test_todos_becoming_all_completed():
    assert triggers.todos_completed(OPEN, DONE)
    assert triggers.todos_completed([], DONE)  # written already finished
    assert not triggers.todos_completed(DONE, DONE)  # the same finished list again
    assert not triggers.todos_completed(OPEN, OPEN)
    assert not triggers.todos_completed(DONE, [])
    other = [TodoItem(content="c", status="completed")]
    assert triggers.todos_completed(DONE, other)  # a new plan, finished


@pytest.mark.parametrize(
    "text",
    ["done", "Thanks, that works!", "LGTM", "perfect, ship it", "it's fixed now", "好了 谢谢"],
)
def test_says_done(text: str):
    assert triggers.says_done(text)


@pytest.mark.parametrize(
    "text",
    [
        "not done yet",
        "it still fails",
        "that doesn't work",
        "almost done, but the test fails",
        "can you rename parse()",
        "还没完成",
    ],
)
def test_does_not_say_done(text: str):
    assert not triggers.says_done(text)


def test_topic_change_rules():
    context = triggers.context_words(
        ["fix the crash in the tokenizer", "I guarded the empty input"], [Path("src/lexer.py")]
    )
    assert triggers.changes_topic("Next, the README", context)
    assert triggers.changes_topic("moving on: the deployment scripts", context)
    # several content words, none shared with the finished turn
    assert triggers.changes_topic("write a deployment script for kubernetes clusters", context)
    assert not triggers.changes_topic("also handle unicode in the tokenizer input", context)
    assert not triggers.changes_topic("and lexer.py too", context)
    assert not triggers.changes_topic("why?", context)  # too short to judge


def test_next_message_needs_a_turn_that_changed_files():
    context = triggers.context_words(["fix parser"], [])
    assert triggers.next_message_trigger("thanks, done", True, context) == "done"
    assert triggers.next_message_trigger("new task: write docs", True, context) == "topic"
    assert triggers.next_message_trigger("thanks, done", False, context) is None
    assert triggers.next_message_trigger("the parser still fails", True, context) is None


def test_length_threshold():
    settings = MemorySettings(episode_rounds=3, episode_tokens=1_000)
    assert not triggers.length_reached(2, 999, settings)
    assert triggers.length_reached(3, 0, settings)
    assert triggers.length_reached(0, 1_000, settings)
    messages = [{"role": "user", "content": "x" * 4_000}]
    assert 1_000 <= triggers.estimate_tokens(messages) < 1_100


def test_the_length_estimate_is_the_whole_spans_json_kept_per_message():
    # asked after every round: each message's size is kept, the span's JSON is not dumped again
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 8 + (64).to_bytes(4, "big") * 2).decode()
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}
    messages: list[Message] = [
        {"role": "user", "content": "héllo " * 50},
        {"role": "assistant", "content": [{"type": "text", "text": "読む"}]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t", "content": [image]}],
        },
    ]

    def whole(span: list[Message]) -> int:
        value, images = without_images(span)
        return images + len(json.dumps(value, ensure_ascii=False)) // 4

    for end in range(len(messages) + 1):
        assert triggers.estimate_tokens(messages[:end]) == whole(messages[:end])
    assert triggers.estimate_tokens(messages) == whole(messages)  # kept sizes: the same answer
    messages[0] = {**messages[0], "content": "short"}  # copy-on-write, as the loop does
    assert triggers.estimate_tokens(messages) == whole(messages)
