"""SPEC §16 for extended thinking: validate_request reports each broken rule, and the fake
model refuses a thinking block whose text or signature changed since it sent it."""

from __future__ import annotations

import copy
from typing import Any

import anthropic
import pytest

from agent_cli.core.messages import validate_request
from tests.fake_model import FakeAnthropic

THOUGHT = {"type": "thinking", "thinking": "read a first", "signature": "sig-a"}
TOOLS = [{"name": "read_file", "input_schema": {"type": "object"}}]


def round_request(**over: Any) -> dict[str, Any]:
    """A request continuing a tool round, thinking on: valid as it stands."""
    body: dict[str, Any] = {
        "model": "claude-fake",
        "max_tokens": 4_096,
        "thinking": {"type": "enabled", "budget_tokens": 2_048},
        "tools": TOOLS,
        "messages": [
            {"role": "user", "content": "what is in a?"},
            {
                "role": "assistant",
                "content": [
                    dict(THOUGHT),
                    {"type": "redacted_thinking", "data": "opaque"},
                    {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}},
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "A"}],
            },
        ],
    }
    body.update(over)
    return body


def test_a_valid_thinking_round_has_no_violation() -> None:
    assert validate_request(round_request()) == []
    assert validate_request(round_request(thinking={"type": "disabled"})) == []


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"thinking": {"type": "enabled", "budget_tokens": 512}}, ">= 1024"),
        ({"thinking": {"type": "enabled", "budget_tokens": 4_096}}, "less than max_tokens"),
        ({"thinking": {"type": "on"}}, "enabled or disabled"),
        ({"temperature": 0.2}, "temperature"),
        ({"top_k": 5}, "top_k"),
        ({"top_p": 0.5}, "top_p"),
        ({"tool_choice": {"type": "tool", "name": "read_file"}}, "tool_choice"),
    ],
)
def test_budget_and_sampling_rules(change: dict[str, Any], expected: str) -> None:
    (problem,) = validate_request(round_request(**change))
    assert expected in problem


def _edited(fn: Any) -> dict[str, Any]:
    body = round_request()
    fn(body["messages"])
    return body


def _drop_thinking(m: list[Any]) -> None:
    del m[1]["content"][:2]


def _thinking_in_user(m: list[Any]) -> None:
    m[0]["content"] = [dict(THOUGHT), {"type": "text", "text": "q"}]


BLOCK_EDITS = [
    (lambda m: m[1]["content"][0].pop("signature"), "without its signature"),
    (lambda m: m[1]["content"][0].update(signature=""), "without its signature"),
    (lambda m: m[1]["content"][0].update(cache_control={"type": "ephemeral"}), "extra fields"),
    (lambda m: m[1]["content"][1].update(data=""), "without its data"),
    (_drop_thinking, "must start with its thinking"),
    (_thinking_in_user, "outside an assistant"),
]


@pytest.mark.parametrize(("edit", "expected"), BLOCK_EDITS)
def test_block_rules(edit: Any, expected: str) -> None:
    (problem,) = validate_request(_edited(edit))
    assert expected in problem


def test_the_round_rule_holds_only_while_a_tool_round_continues() -> None:
    body = _edited(_drop_thinking)
    body["messages"] += [
        {"role": "assistant", "content": "A it is."},
        {"role": "user", "content": "next question"},
    ]
    assert validate_request(body) == []  # earlier turns may have lost their thinking
    body.pop("thinking")
    assert validate_request(copy.deepcopy(body)) == []


def _send(server: FakeAnthropic, body: dict[str, Any]) -> None:
    client = anthropic.Anthropic(base_url=server.base_url, api_key="sk-test-x", max_retries=0)
    with client:
        client.messages.create(**body)


def test_the_fake_refuses_altered_thinking_and_accepts_it_unchanged() -> None:
    with FakeAnthropic() as server:
        server.script.reply(
            [
                {"type": "thinking", "thinking": "read a first"},
                {"type": "redacted_thinking"},
                {"type": "tool_use", "name": "read_file", "input": {"path": "a"}},
            ]
        )
        server.script.text("fine").text("never")
        body = round_request(messages=[{"role": "user", "content": "what is in a?"}])
        _send(server, body)
        issued = server.replies[0]["content"]
        assert issued[0]["signature"].startswith("sigfake_")
        assert issued[1]["data"].startswith("rdxfake_")
        result = {"type": "tool_result", "tool_use_id": issued[2]["id"], "content": "A"}
        messages = [*body["messages"], {"role": "assistant", "content": issued}]
        _send(server, round_request(messages=[*messages, {"role": "user", "content": [result]}]))
        assert server.violations == []

        altered = copy.deepcopy(issued)
        altered[0]["thinking"] += " (edited)"
        altered[1]["data"] = "rdxfake_forged_0000"
        messages[-1] = {"role": "assistant", "content": altered}
        with pytest.raises(anthropic.BadRequestError):
            _send(
                server, round_request(messages=[*messages, {"role": "user", "content": [result]}])
            )
        problems = [v.message for v in server.violations]
    assert any("signature does not match" in p for p in problems)
    assert any("redacted_thinking data was not issued" in p for p in problems)
