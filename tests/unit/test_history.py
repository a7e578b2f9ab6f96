from __future__ import annotations

from agent_cli.core.history import INTERRUPTED, repair
from agent_cli.core.messages import validate_request


def use(i: str) -> dict:
    return {"type": "tool_use", "id": i, "name": "bash", "input": {"command": "ls"}}


def result(i: str) -> dict:
    return {"type": "tool_result", "tool_use_id": i, "content": "ok"}


def text(t: str) -> dict:
    return {"type": "text", "text": t}


def valid(messages: list[dict]) -> list[str]:
    return validate_request({"model": "m", "max_tokens": 1, "messages": messages})


def test_dangling_tool_use_gets_interrupted_result():
    history = [
        {"role": "user", "content": [text("go")]},
        {"role": "assistant", "content": [use("a")]},
    ]
    fixed = repair(history)
    assert fixed[-1] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": INTERRUPTED, "is_error": True}
        ],
    }
    assert valid(fixed) == []


def test_partial_results_are_completed_and_put_first():
    history = [
        {"role": "user", "content": [text("go")]},
        {"role": "assistant", "content": [use("a"), use("b")]},
        {"role": "user", "content": [text("next"), result("b")]},
    ]
    fixed = repair(history)
    ids = [b.get("tool_use_id") for b in fixed[2]["content"]]
    assert ids == ["a", "b", None]
    assert valid(fixed) == []


def test_consecutive_users_merge_and_orphans_and_blanks_go():
    history = [
        {"role": "assistant", "content": [text("stray assistant first")]},
        {"role": "user", "content": [text("one"), result("ghost")]},
        {"role": "user", "content": [text("   "), text("two")]},
        {"role": "assistant", "content": [text("answer")]},
    ]
    fixed = repair(history)
    assert fixed == [
        {"role": "user", "content": [text("one"), text("two")]},
        {"role": "assistant", "content": [text("answer")]},
    ]


def test_valid_history_is_unchanged():
    history = [
        {"role": "user", "content": [text("go")]},
        {"role": "assistant", "content": [text("thinking"), use("a")]},
        {"role": "user", "content": [result("a")]},
        {"role": "assistant", "content": [text("done")]},
    ]
    assert repair(history) == history
