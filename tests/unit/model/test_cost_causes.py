"""The cause of a miss, part by part, and the judge's injectable clock: an agent's call after
a gap longer than the TTL is `expired` (the clock moved, nothing slept); labels follow the
subagents' order in the session; the fake server's cache expires by its own clock."""

from __future__ import annotations

from typing import Any

from agent_cli.ext.cost.records import CallEntry, summarize
from agent_cli.model.call_log import CallLog, CallRecord
from agent_cli.model.client import ModelRequest
from agent_cli.model.fingerprint import Fingerprint, fingerprint, miss_cause
from agent_cli.model.usage import Usage
from tests.fake_model.usage import PromptCache

SYSTEM = "You are an agent.\n\n# Project instructions\nUse tabs.\n\n# Environment\nDate: today"
TOOLS = [{"name": "read_file", "input_schema": {"type": "object"}}]


def request(**changes: Any) -> ModelRequest:
    fields: dict[str, Any] = {
        "model": "m1",
        "system": [{"type": "text", "text": SYSTEM}],
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
        "tools": TOOLS,
    }
    return ModelRequest(**(fields | changes))


def test_each_part_names_itself() -> None:
    before = fingerprint(request())
    edited = SYSTEM.replace("tabs", "spaces")
    assert miss_cause(None, before, None, 300) == ("first", "")
    assert miss_cause(before, fingerprint(request(model="m2")), 1, 300) == ("model", "m1 -> m2")
    more = [*TOOLS, {"name": "mcp__srv__echo", "input_schema": {}}]
    assert miss_cause(before, fingerprint(request(tools=more)), 1, 300) == (
        "tools",
        "added mcp__srv__echo",
    )
    system = [{"type": "text", "text": edited}]
    assert miss_cause(before, fingerprint(request(system=system)), 1, 300) == (
        "system",
        "changed project instructions",
    )
    shorter = fingerprint(request(messages=[{"role": "user", "content": "summary"}]))
    assert miss_cause(before, shorter, 1, 300)[0] == "history"  # type: ignore[index]
    assert miss_cause(before, fingerprint(request()), 301, 300)[0] == "expired"  # type: ignore[index]
    assert miss_cause(before, fingerprint(request()), 299, 300) is None


def test_a_grown_history_is_no_cause_but_an_edited_message_is() -> None:
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]
    before = fingerprint(request(messages=messages))
    grown = [*messages, {"role": "user", "content": "and then"}]
    assert miss_cause(before, fingerprint(request(messages=grown)), 1, 300) is None
    edited = [messages[0], {"role": "assistant", "content": "YO"}, grown[2]]
    assert miss_cause(before, fingerprint(request(messages=edited)), 1, 300)[0] == "history"  # type: ignore[index]


def test_a_stored_fingerprint_judges_as_the_live_one() -> None:
    before = fingerprint(request())
    again = Fingerprint.from_stored(before.stored())
    grown = [*request().messages, {"role": "user", "content": "more"}]
    assert miss_cause(again, fingerprint(request(messages=grown)), 1, 300) is None
    assert miss_cause(again, fingerprint(request(model="m2")), 1, 300)[0] == "model"  # type: ignore[index]


def _call(log: CallLog, caller: str, req: ModelRequest, read: int, write: int) -> dict[str, Any]:
    record = CallRecord.begin(req.model, "host", caller)
    record.fingerprint = fingerprint(req)
    record.end(Usage(input_tokens=3, cache_read_input_tokens=read,
                     cache_creation_input_tokens=write), "end_turn", None)  # fmt: skip
    log.write(record)
    assert record.entry is not None
    return record.entry


def test_the_judge_s_clock_is_injectable_and_labels_follow_the_session() -> None:
    now = [0.0]
    log = CallLog(None, None)
    log.calls.clock = lambda: now[0]
    seen = [_call(log, "main", request(), 0, 100)]
    seen.append(_call(log, "subagent:n-0007", request(model="m2"), 0, 50))
    seen.append(_call(log, "subagent:n-0003", request(model="m2"), 40, 10))
    now[0] += 301  # past the 5-minute TTL, no sleep
    seen.append(_call(log, "main", request(), 0, 100))
    seen.append(_call(log, "summariser", request(), 100, 0))
    entries = [CallEntry.model_validate(e) for e in seen]
    assert [(e.agent, e.cause) for e in entries] == [
        ("main", "first"),
        ("sub1", "first"),
        ("sub2", None),  # its first call read more than it wrote: no miss
        ("main", "expired"),
        ("summary", None),
    ]
    summary = summarize(entries)
    assert [a.agent for a in summary.by_agent] == ["main", "sub1", "sub2", "summary"]
    assert (summary.read_tokens, summary.write_tokens) == (140, 260)
    assert summary.hit_ratio == 140 / (15 + 140 + 260)


def test_a_resumed_session_goes_on_from_its_recorded_calls() -> None:
    first = CallLog(None, None)
    kept: list[dict[str, Any]] = []
    first.calls.adopt(0, [], kept.append)
    _call(first, "main", request(), 0, 100)
    _call(first, "subagent:n-0001", request(), 100, 0)
    later = CallLog(None, None)
    later.calls.adopt(2, kept, None)
    edited = [{"type": "text", "text": SYSTEM.replace("tabs", "spaces")}]
    entry = _call(later, "main", request(system=edited), 10, 90)
    assert (entry["call"], entry["agent"], entry["cause"]) == (3, "main", "system")
    assert _call(later, "subagent:n-0009", request(), 100, 0)["agent"] == "sub2"


def test_the_fake_server_s_cache_expires_by_its_clock() -> None:
    now = [0.0]
    cache = PromptCache(clock=lambda: now[0])
    body = {"model": "m", "system": [{"type": "text", "text": "s" * 400,
            "cache_control": {"type": "ephemeral"}}], "messages": []}  # fmt: skip
    assert cache.usage_for(body)["cache_read_input_tokens"] == 0
    now[0] += 299
    assert cache.usage_for(body)["cache_read_input_tokens"] > 0
    now[0] += 299  # read at 299: the TTL counts from then
    assert cache.usage_for(body)["cache_read_input_tokens"] > 0
    now[0] += 301
    assert cache.usage_for(body)["cache_read_input_tokens"] == 0
