"""One renderer of a conversation for the summariser and the episode writer."""

from __future__ import annotations

from agent_cli.context.summary import render_history
from agent_cli.core.messages import Message
from agent_cli.core.text.conversation import Clips, render_conversation
from agent_cli.memory.generator import render_conversation as episode_input

CLIPS = Clips(text=20, tool_input=15, tool_result=10, total=10_000, head_share=0.5)

MESSAGES: list[Message] = [
    {"role": "user", "content": "fix the parser please, it fails on empty input"},
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "secret plan", "signature": "sig"},
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "parser.py"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "t1",
                "is_error": True,
                "content": [{"type": "text", "text": "no such file: parser.py"}],
            }
        ],
    },
    {"role": "assistant", "content": [{"type": "image", "source": {}}]},
]


def test_every_block_kind_has_one_line_and_thinking_none():
    assert render_conversation(MESSAGES, CLIPS).splitlines() == [
        "[user] fix the parser pleas… [26 chars cut]",
        "[assistant] Looking.",
        '[tool call read_file] {"path": "parse… [6 chars cut]',
        "[tool result (error)] no such fi… [13 chars cut]",
        "[image block]",
    ]


def test_an_overlong_whole_keeps_its_head_and_its_newest_part():
    many: list[Message] = [{"role": "user", "content": f"m{i:03d} " + "w" * 50} for i in range(100)]
    text = render_conversation(many, Clips(None, 10, 10, total=1_000, head_share=0.2))
    assert text.startswith("[user] m000 ")
    assert text.endswith("w" * 50)
    assert "m099 " in text
    assert "m050 " not in text
    assert "characters of the conversation left out" in text
    assert len(text) < 1_100


def test_the_two_readers_share_the_layout_with_their_own_clips():
    summariser, episode = render_history(MESSAGES, 10_000), episode_input(MESSAGES)
    assert summariser == episode  # short blocks: nothing clipped by either
    result = {"type": "tool_result", "tool_use_id": "t", "content": "r" * 3_000}
    long_result: list[Message] = [{"role": "user", "content": [result]}]
    assert "[2600 chars cut]" in episode_input(long_result)  # the episode writer keeps 400
    assert "[1000 chars cut]" in render_history(long_result, 10_000)  # the summariser 2,000
