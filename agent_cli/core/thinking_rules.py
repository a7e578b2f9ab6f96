"""The rules of SPEC §16 for extended thinking, as the Messages API enforces them.

- `thinking` is `{"type": "enabled", "budget_tokens": n}` with 1,024 <= n < max_tokens, or
  `{"type": "disabled"}`; with it enabled, `temperature` is 1 or unset, `top_k` unset, `top_p`
  at least 0.95, and `tool_choice` (if any) is `auto` or `none`: thinking cannot be forced past.
- A thinking block is `{type, thinking, signature}` with a non-empty signature and nothing else
  (no `cache_control`); a redacted block is `{type, data}`. Both live in assistant messages.
- With thinking enabled, a request that continues a tool round (its last message starts with
  tool results) sends back the assistant message of that round starting with its thinking.
"""

from __future__ import annotations

from typing import Any

from agent_cli.core.settings.thinking import MIN_THINKING_BUDGET

THINKING_BLOCKS = ("thinking", "redacted_thinking")
_FIELDS = {"thinking": {"type", "thinking", "signature"}, "redacted_thinking": {"type", "data"}}


def check_thinking(body: dict[str, Any], messages: list[Any]) -> list[str]:
    problems = _check_blocks(messages)
    thinking = body.get("thinking")
    if thinking is None:
        return problems
    if not isinstance(thinking, dict) or thinking.get("type") not in ("enabled", "disabled"):
        return [*problems, f"thinking must be enabled or disabled, got {thinking!r}"]
    if thinking["type"] == "disabled":
        return problems
    problems += _check_budget(thinking.get("budget_tokens"), body.get("max_tokens"))
    problems += _check_sampling(body)
    problems += _check_round_starts_with_thinking(messages)
    return problems


def _check_budget(budget: Any, max_tokens: Any) -> list[str]:
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < MIN_THINKING_BUDGET:
        return [f"thinking.budget_tokens must be an integer >= {MIN_THINKING_BUDGET}: {budget!r}"]
    if isinstance(max_tokens, int) and budget >= max_tokens:
        return [f"thinking.budget_tokens ({budget}) must be less than max_tokens ({max_tokens})"]
    return []


def _check_sampling(body: dict[str, Any]) -> list[str]:
    problems = []
    if body.get("temperature") not in (None, 1, 1.0):
        problems.append("temperature must be 1 (or unset) with thinking enabled")
    if body.get("top_k") is not None:
        problems.append("top_k cannot be set with thinking enabled")
    top_p = body.get("top_p")
    if top_p is not None and not (isinstance(top_p, int | float) and 0.95 <= top_p <= 1):
        problems.append("top_p must be between 0.95 and 1 with thinking enabled")
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") not in ("auto", "none"):
        problems.append(f"tool_choice {choice.get('type')!r} cannot be used with thinking")
    return problems


def _blocks(message: Any) -> list[dict[str, Any]]:
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _check_blocks(messages: list[Any]) -> list[str]:
    problems: list[str] = []
    for i, message in enumerate(messages):
        for j, block in enumerate(_blocks(message)):
            kind, at = block.get("type"), f"messages[{i}].content[{j}]"
            if kind not in THINKING_BLOCKS:
                continue
            if message.get("role") != "assistant":
                problems.append(f"{at}: {kind} outside an assistant message")
            extra = sorted(set(block) - _FIELDS[str(kind)])
            if extra:
                problems.append(f"{at}: {kind} has extra fields {extra}")
            if kind == "thinking":
                if not isinstance(block.get("thinking"), str):
                    problems.append(f"{at}: thinking block without its text")
                if not isinstance(block.get("signature"), str) or not block["signature"]:
                    problems.append(f"{at}: thinking block without its signature")
            elif not isinstance(block.get("data"), str) or not block["data"]:
                problems.append(f"{at}: redacted_thinking block without its data")
    return problems


def _check_round_starts_with_thinking(messages: list[Any]) -> list[str]:
    if len(messages) < 2:
        return []
    last, reply = _blocks(messages[-1]), _blocks(messages[-2])
    if not last or last[0].get("type") != "tool_result":
        return []
    if reply and reply[0].get("type") in THINKING_BLOCKS:
        return []
    first = reply[0].get("type") if reply else None
    return [
        f"messages[{len(messages) - 2}]: with thinking enabled, the assistant message of a tool "
        f"round must start with its thinking block (found {first!r})"
    ]
