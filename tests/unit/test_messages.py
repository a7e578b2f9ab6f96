"""SPEC §16: validate_request reports each broken rule, and nothing for a valid request."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from agent_cli.core.messages import validate_request

CACHE = {"type": "ephemeral"}


def valid() -> dict[str, Any]:
    return {
        "model": "claude-fake",
        "max_tokens": 1024,
        "system": [{"type": "text", "text": "You are an agent.", "cache_control": CACHE}],
        "tools": [
            {
                "name": "read_file",
                "description": "Read a file.",
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
            },
            {"name": "bash", "input_schema": {"type": "object"}, "cache_control": CACHE},
            {"type": "web_search_20250305", "name": "web_search"},
        ],
        "messages": [
            {"role": "user", "content": "Read a.py and b.py"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "two files", "signature": "sig"},
                    {"type": "text", "text": "Reading."},
                    {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}},
                    {"type": "tool_use", "id": "t2", "name": "read_file", "input": {"path": "b"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "A"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "t2",
                        "content": [{"type": "text", "text": "B"}],
                        "is_error": False,
                    },
                    {"type": "text", "text": "Now summarise.", "cache_control": CACHE},
                ],
            },
            {"role": "assistant", "content": "Both files"},
        ],
    }


def only_violation(body: dict[str, Any]) -> str:
    problems = validate_request(body)
    assert len(problems) == 1, problems
    return problems[0]


def test_valid_request_has_no_violations() -> None:
    assert validate_request(valid()) == []


def test_minimal_request_is_valid() -> None:
    assert validate_request({"messages": [{"role": "user", "content": "hi"}]}) == []


def test_messages_must_be_a_non_empty_list() -> None:
    assert only_violation({"messages": []}) == "messages must be a non-empty list"
    assert only_violation({}) == "messages must be a non-empty list"


def test_first_message_must_be_user() -> None:
    body = valid()
    body["messages"] = [{"role": "assistant", "content": "hi"}]
    assert "role is 'assistant', expected 'user'" in only_violation(body)


def test_roles_alternate() -> None:
    body = {
        "messages": [
            {"role": "user", "content": "one"},
            {"role": "user", "content": "two"},
        ]
    }
    assert only_violation(body).startswith("messages[1]: role is 'user', expected 'assistant'")


@pytest.mark.parametrize("content", ["", []])
def test_empty_content(content: Any) -> None:
    body = {"messages": [{"role": "user", "content": content}]}
    assert only_violation(body) == "messages[0]: empty content"


def test_whitespace_only_string_content() -> None:
    body = {"messages": [{"role": "user", "content": " \n\t"}]}
    assert only_violation(body) == "messages[0]: whitespace-only text content"


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_whitespace_only_text_block(text: str) -> None:
    body = valid()
    body["messages"][2]["content"][2]["text"] = text
    assert only_violation(body) == ("messages[2].content[2]: empty or whitespace-only text block")


def test_whitespace_only_text_inside_tool_result() -> None:
    body = valid()
    body["messages"][2]["content"][1]["content"][0]["text"] = " "
    assert "messages[2].content[1].content[0]" in only_violation(body)


def test_tool_use_without_result() -> None:
    body = valid()
    del body["messages"][2]["content"][1]
    assert only_violation(body) == (
        "messages[1]: tool_use 't2' has no tool_result in the next user message"
    )


def test_tool_use_in_final_assistant_message_has_no_result() -> None:
    body = valid()
    body["messages"] = body["messages"][:2]
    problems = validate_request(body)
    assert len(problems) == 2
    assert all("has no tool_result in the next user message" in p for p in problems)


def test_tool_result_after_text() -> None:
    body = valid()
    content = body["messages"][2]["content"]
    content.insert(0, content.pop())  # the text block first
    assert only_violation(body) == (
        "messages[2].content[1]: tool_result after a non-tool_result block"
    )


def test_tool_result_without_tool_use() -> None:
    body = valid()
    body["messages"][2]["content"].insert(
        2, {"type": "tool_result", "tool_use_id": "t9", "content": "?"}
    )
    assert only_violation(body) == (
        "messages[2]: tool_result 't9' has no tool_use in the preceding assistant message"
    )


def test_tool_result_answering_an_older_assistant_message() -> None:
    body = valid()
    body["messages"] += [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "A"}]}
    ]
    assert "messages[4]: tool_result 't1' has no tool_use" in only_violation(body)


def test_duplicate_tool_result() -> None:
    body = valid()
    body["messages"][2]["content"].insert(1, copy.deepcopy(body["messages"][2]["content"][0]))
    assert only_violation(body) == "messages[2]: duplicate tool_result for id 't1' (2x)"


def test_tool_use_ids_unique_across_request() -> None:
    body = valid()
    body["messages"] += [
        {"role": "user", "content": "again"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
        },
    ]
    assert only_violation(body) == "tool_use id 't1' appears 2 times in the request"


def test_tool_names_unique() -> None:
    body = valid()
    body["tools"][1]["name"] = "read_file"
    assert only_violation(body) == "tool name 'read_file' appears 2 times"


@pytest.mark.parametrize("name", ["read file", "", "x" * 65, "read.file"])
def test_tool_name_pattern(name: str) -> None:
    body = valid()
    body["tools"][0]["name"] = name
    assert "does not match ^[a-zA-Z0-9_-]{1,64}$" in only_violation(body)


@pytest.mark.parametrize("schema", [None, {"type": "string"}, {"properties": {}}, "object"])
def test_input_schema_is_an_object_schema(schema: Any) -> None:
    body = valid()
    body["tools"][0]["input_schema"] = schema
    assert only_violation(body) == "tools[0] (read_file): input_schema must be an object schema"


def test_at_most_four_cache_breakpoints() -> None:
    body = valid()  # three breakpoints: system, tools[1], the newest user text
    body["messages"][0]["content"] = [{"type": "text", "text": "Read", "cache_control": CACHE}]
    assert validate_request(body) == []
    body["messages"][2]["content"][1]["content"][0]["cache_control"] = CACHE
    assert only_violation(body) == "5 cache_control breakpoints, at most 4 allowed"


def test_cache_breakpoints_counted_with_string_system() -> None:
    body = valid()
    body["system"] = "plain"
    body["messages"][0]["content"] = [{"type": "text", "text": "a", "cache_control": CACHE}]
    body["messages"][1]["content"][1]["cache_control"] = CACHE
    assert validate_request(body) == []
    body["tools"][0]["cache_control"] = CACHE
    assert only_violation(body) == "5 cache_control breakpoints, at most 4 allowed"


@pytest.mark.parametrize(
    "content",
    ["Both files ", "Both\n", [{"type": "text", "text": "prefill "}]],
)
def test_final_assistant_prefill_must_not_end_in_whitespace(content: Any) -> None:
    body = valid()
    body["messages"][3]["content"] = content
    assert only_violation(body) == "messages[3]: final assistant content ends with whitespace"


def test_trailing_whitespace_is_fine_before_the_end() -> None:
    body = valid()
    body["messages"][3]["content"] = "Both files "
    body["messages"].append({"role": "user", "content": "thanks"})
    assert validate_request(body) == []
