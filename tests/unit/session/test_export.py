"""/export's documents: a compaction is marked, a fence outlasts the backticks inside, thinking
stays out of the Markdown and in the JSON as sent."""

from __future__ import annotations

import json

from agent_cli.session.export import Entry, ExportHeader, as_json, as_markdown
from agent_cli.session.resume import Boundary
from agent_cli.session.transcript import ShownRecord

HEADER = ExportHeader("s-1", "", "m", "/ws")
THOUGHT = {"type": "thinking", "thinking": "secret plan", "signature": "sig"}
CONVERSATION: list[Entry] = [
    {"role": "user", "content": "first"},
    Boundary("summary", 12),
    {"role": "assistant", "content": [THOUGHT, {"type": "text", "text": "answer"}]},
    ShownRecord(text="a tool's line"),
    {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "t", "content": "a ``` b"}],
    },
]


def test_markdown_marks_compactions_fences_results_and_leaves_thinking_out():
    md = as_markdown(HEADER, CONVERSATION)
    assert md.startswith("# Session s-1\n")
    assert "*(compacted: 12 earlier messages, summary)*" in md
    assert "````\na ``` b\n````" in md
    assert "secret plan" not in md
    assert md.count("## You") == 1  # a message of results only gets no heading


def test_json_keeps_messages_as_sent_and_compactions_as_entries():
    document = json.loads(as_json(HEADER, CONVERSATION))
    kinds = [entry["type"] for entry in document["conversation"]]
    assert kinds == ["message", "compaction", "message", "message"]
    assert document["conversation"][2]["content"][0] == THOUGHT
    assert document["conversation"][1] == {"type": "compaction", "stage": "summary", "replaced": 12}


NOTICE = "[background job j2 `make` ended: exit 0 after 3 s]"
SHOWN_CONVERSATION: list[Entry] = [
    {"role": "user", "content": "build it"},
    {"role": "assistant", "content": [{"type": "text", "text": "Started."}]},
    ShownRecord(kind="notice", id="job", text=NOTICE),
    {"role": "user", "content": [{"type": "text", "text": NOTICE}]},
    {"role": "assistant", "content": [{"type": "text", "text": "It built."}]},
    ShownRecord(kind="goal", text="the check `make test` passed", is_error=False),
    {"role": "user", "content": "and again"},
    ShownRecord(kind="error", text="API error 529: overloaded"),
]


def test_markdown_quotes_the_agents_notices_and_keeps_errors_and_checks_in_place():
    md = as_markdown(HEADER, SHOWN_CONVERSATION)
    assert md.count("## You") == 2  # "build it" and "and again"; the job's end is not the user's
    assert f"> *The agent to the model:*\n>\n> {NOTICE}" in md
    assert md.index("It built.") < md.index("*(goal check: the check `make test` passed)*")
    assert md.rstrip().endswith("*(turn failed: API error 529: overloaded)*")


def test_json_lists_notices_checks_and_errors_beside_the_messages():
    entries = json.loads(as_json(HEADER, SHOWN_CONVERSATION))["conversation"]
    shown = [(e["type"], e["text"]) for e in entries if e["type"] != "message"]
    assert shown == [
        ("notice", NOTICE),
        ("goal", "the check `make test` passed"),
        ("error", "API error 529: overloaded"),
    ]
    assert entries[3] == {
        "type": "message",
        "role": "user",
        "content": [{"type": "text", "text": NOTICE}],
    }
