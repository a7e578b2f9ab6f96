"""The fake model server, driven by the real anthropic SDK over real HTTP."""

from __future__ import annotations

import asyncio
import json
import socket
import time
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anthropic
import httpx2
import pytest
from anthropic.types import MessageParam

from tests.fake_model import FakeAnthropic, Script, system_contains
from tests.fake_model.script import Reply

T = TypeVar("T")
# A body cut mid-stream: anthropic 2.17 wraps the failed read as APIConnectionError (the httpx2
# error its cause); 2.14-2.16 let the raw httpx2 error through. The agent catches both.
_SDK = tuple(int(p) for p in anthropic.__version__.split(".")[:2])
STREAM_CUT: type[Exception] = (
    anthropic.APIConnectionError if _SDK >= (2, 17) else httpx2.RemoteProtocolError
)
HI: list[MessageParam] = [{"role": "user", "content": "hi"}]
TOOLS = [
    {"name": "read_file", "input_schema": {"type": "object"}},
    {"name": "bash", "input_schema": {"type": "object"}},
]


def drive(
    server: FakeAnthropic,
    fn: Callable[[anthropic.AsyncAnthropic], Awaitable[T]],
    max_retries: int = 2,
) -> T:
    """Run ``fn(client)`` with a real SDK client pointed at the server."""

    async def main() -> T:
        async with anthropic.AsyncAnthropic(
            base_url=server.base_url, api_key="sk-test-" + "k" * 32, max_retries=max_retries
        ) as client:
            return await fn(client)

    return asyncio.run(main())


async def create(client: anthropic.AsyncAnthropic, **kw: Any) -> anthropic.types.Message:
    args = {"model": "claude-fake", "max_tokens": 100, "messages": HI, **kw}
    message: anthropic.types.Message = await client.messages.create(**args)
    return message


async def stream(client: anthropic.AsyncAnthropic, **kw: Any) -> anthropic.types.Message:
    args = {"model": "claude-fake", "max_tokens": 100, "messages": HI, **kw}
    async with client.messages.stream(**args) as s:
        return await s.get_final_message()


async def raw_events(client: anthropic.AsyncAnthropic, **kw: Any) -> list[Any]:
    args = {"model": "claude-fake", "max_tokens": 100, "messages": HI, **kw}
    events = await client.messages.create(stream=True, **args)
    return [e async for e in events]


def test_text_reply_non_streamed(fake_model: FakeAnthropic) -> None:
    fake_model.script.text("done")
    message = drive(fake_model, create)
    assert [b.model_dump(exclude_none=True) for b in message.content] == [
        {"type": "text", "text": "done"}
    ]
    assert message.stop_reason == "end_turn"
    assert message.model == "claude-fake"
    assert message.usage.input_tokens > 0
    assert message.usage.output_tokens > 0
    (request,) = fake_model.requests
    assert request.path == "/v1/messages"
    # SDK 2.14 sends the API key as a bearer token, not as x-api-key
    assert request.headers["authorization"] == "Bearer sk-test-" + "k" * 32
    assert fake_model.bodies() == [{"model": "claude-fake", "max_tokens": 100, "messages": HI}]


def test_text_reply_streamed_in_chunks(fake_model: FakeAnthropic) -> None:
    fake_model.script.text("a longer answer").text("a longer answer", stop_reason="max_tokens")
    events = drive(fake_model, raw_events)
    assert [e.type for e in events] == [
        "message_start",
        *["content_block_start", "content_block_delta", "content_block_delta"],
        *["content_block_delta", "content_block_stop", "message_delta", "message_stop"],
    ]
    assert "".join(e.delta.text for e in events if e.type == "content_block_delta") == (
        "a longer answer"
    )
    message = drive(fake_model, stream)
    assert message.content[0].type == "text"
    assert message.content[0].text == "a longer answer"
    assert message.stop_reason == "max_tokens"
    assert fake_model.bodies()[0]["stream"] is True


def test_ping_is_sent_after_message_start(fake_model: FakeAnthropic) -> None:
    fake_model.script.text("x")
    request = urllib.request.Request(
        fake_model.base_url + "/v1/messages?beta=true",
        data=json.dumps({"model": "m", "max_tokens": 5, "messages": HI, "stream": True}).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        assert response.headers["content-type"] == "text/event-stream"
        text = response.read().decode()
    names = [line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("event:")]
    assert names[:2] == ["message_start", "ping"]
    assert names[-2:] == ["message_delta", "message_stop"]
    assert fake_model.requests[0].path == "/v1/messages"


def test_tool_use_input_arrives_in_chunks_and_accumulates(fake_model: FakeAnthropic) -> None:
    command = {"command": "ls -la", "timeout": 5, "env": {"A": [1, None]}}
    fake_model.script.tool_use("bash", command).tool_use("read_file", path="a.py")
    events = drive(fake_model, lambda c: raw_events(c, tools=TOOLS))
    chunks = [e.delta.partial_json for e in events if e.type == "content_block_delta"]
    assert len(chunks) > 1
    assert json.loads("".join(chunks)) == command
    assert events[0].message.content == []

    message = drive(fake_model, lambda c: stream(c, tools=TOOLS))
    (block,) = message.content
    assert block.type == "tool_use"
    assert (block.name, block.input) == ("read_file", {"path": "a.py"})
    assert block.id == "toolu_fake_0002"  # ids are unique per server
    assert message.stop_reason == "tool_use"


def test_several_tool_uses_and_thinking(fake_model: FakeAnthropic) -> None:
    fake_model.script.reply(
        [
            {"type": "thinking", "thinking": "list, then read", "signature": "sig-1"},
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "name": "bash", "input": {"command": "ls"}},
            {"type": "tool_use", "name": "read_file", "input": {}},
        ]
    ).tool_uses(("read_file", {"path": "a"}), ("bash", {"command": "ls"}), stop_reason="end_turn")
    message = drive(fake_model, lambda c: stream(c, tools=TOOLS))
    dumped = [b.model_dump(exclude_none=True) for b in message.content]
    assert dumped == [
        {"type": "thinking", "thinking": "list, then read", "signature": "sig-1"},
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "toolu_fake_0001", "name": "bash", "input": {"command": "ls"}},
        {"type": "tool_use", "id": "toolu_fake_0002", "name": "read_file", "input": {}},
    ]
    message = drive(fake_model, lambda c: create(c, tools=TOOLS))
    assert [(b.type, b.input) for b in message.content if b.type == "tool_use"] == [
        ("tool_use", {"path": "a"}),
        ("tool_use", {"command": "ls"}),
    ]
    assert message.stop_reason == "end_turn"


def test_overloaded_then_success_is_retried_fast(fake_model: FakeAnthropic) -> None:
    fake_model.script.error(529).error(429).text("finally")
    started = time.monotonic()
    message = drive(fake_model, stream, max_retries=2)
    assert time.monotonic() - started < 1.0
    assert message.content[0].type == "text"
    assert message.content[0].text == "finally"
    assert len(fake_model.requests) == 3
    assert fake_model.requests[1].headers["x-stainless-retry-count"] == "1"


def test_errors_carry_the_api_error_body(fake_model: FakeAnthropic) -> None:
    fake_model.script.error(529)
    with pytest.raises(anthropic.APIStatusError) as caught:
        drive(fake_model, create, max_retries=0)
    assert caught.value.status_code == 529
    assert caught.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "fake overloaded_error (529)"},
        "request_id": "req_fake_0000",
    }


def test_prompt_too_long(fake_model: FakeAnthropic) -> None:
    fake_model.script.prompt_too_long()
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):
        drive(fake_model, stream)
    assert len(fake_model.requests) == 1  # 400 is not retried


def test_dropped_stream_raises_on_the_client(fake_model: FakeAnthropic) -> None:
    fake_model.script.text("partial answer", drop_after=4)
    seen: list[str] = []

    async def consume(client: anthropic.AsyncAnthropic) -> None:
        async with client.messages.stream(model="m", max_tokens=10, messages=HI) as s:
            async for text in s.text_stream:
                seen.append(text)

    with pytest.raises(STREAM_CUT) as caught:
        drive(fake_model, consume)
    assert caught.type is STREAM_CUT
    cut = caught.value if STREAM_CUT is httpx2.RemoteProtocolError else caught.value.__cause__
    assert isinstance(cut, httpx2.RemoteProtocolError)
    assert "incomplete chunked read" in str(cut)
    assert seen == ["parti"]  # one text chunk arrived before the cut
    assert len(fake_model.requests) == 1  # a broken stream is not retried by the SDK


def test_dropped_non_streaming_reply_is_a_connection_error(fake_model: FakeAnthropic) -> None:
    fake_model.script.text("partial", drop_after=0)
    with pytest.raises(anthropic.APIConnectionError) as caught:
        drive(fake_model, create, max_retries=0)
    assert isinstance(caught.value.__cause__, httpx2.RemoteProtocolError)


def test_error_event_mid_stream(fake_model: FakeAnthropic) -> None:
    fake_model.script.error(529, mid_stream=True).error(529, mid_stream=True)
    with pytest.raises(anthropic.APIStatusError, match="overloaded_error") as caught:
        drive(fake_model, stream)
    assert caught.value.status_code == 200  # the stream had started: not an OverloadedError
    assert len(fake_model.requests) == 1  # and not retried
    with pytest.raises(anthropic.OverloadedError):  # without a stream: the plain HTTP 529
        drive(fake_model, create, max_retries=0)


def test_request_breaking_the_rules_is_a_violation() -> None:
    with FakeAnthropic() as server:
        server.script.text("never sent")
        bad = [{"role": "user", "content": "hi"}, {"role": "user", "content": " "}]
        with pytest.raises(anthropic.BadRequestError, match="whitespace-only"):
            drive(server, lambda c: create(c, messages=bad))
        assert [str(v) for v in server.violations] == [
            "request #0: messages[1]: role is 'user', expected 'assistant' (roles alternate)",
            "request #0: messages[1]: whitespace-only text content",
        ]
        assert server.script.pending() == 1  # a rejected request consumes no step


def test_a_body_cut_short_by_its_senders_death_is_recorded_not_a_violation() -> None:
    """A client killed while it sends a request (kill -9 mid-write) leaves the server less body
    than its Content-Length announced: counted as a request, never answered, not a violation
    (nothing was sent whole; the real API never sees it)."""
    with FakeAnthropic() as server:
        server.script.text("for the next one")
        body = json.dumps({"model": "claude-fake", "max_tokens": 5, "messages": HI}).encode()
        head = (
            f"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        port = int(server.base_url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(head + body[: len(body) // 2])
            sock.shutdown(socket.SHUT_WR)  # the sender is gone
            assert sock.recv(1024) == b""  # no answer: the connection just ends
        assert [r.complete for r in server.requests] == [False]
        assert server.violations == []
        assert server.script.pending() == 1  # it consumed no step
        assert drive(server, create).content[0].text == "for the next one"  # type: ignore[union-attr]
        assert [r.complete for r in server.requests] == [False, True]


def test_exhausted_script_is_a_violation_and_not_retried() -> None:
    with FakeAnthropic() as server:
        with pytest.raises(anthropic.InternalServerError, match="script exhausted"):
            drive(server, create, max_retries=2)
        assert len(server.requests) == 1
        (violation,) = server.violations
        assert violation.message.startswith("script exhausted")


def test_concurrent_requests_are_served_concurrently(fake_model: FakeAnthropic) -> None:
    for name in ("a", "b", "c"):
        fake_model.script.text(name, delay=1)

    async def three(client: anthropic.AsyncAnthropic) -> list[anthropic.types.Message]:
        return await asyncio.gather(*(stream(client) for _ in range(3)))

    started = time.monotonic()
    messages = drive(fake_model, three)
    assert time.monotonic() - started < 2.0
    assert sorted(m.content[0].text for m in messages) == ["a", "b", "c"]  # type: ignore[union-attr]


def test_routing_by_system_prompt(fake_model: FakeAnthropic) -> None:
    sub = fake_model.route(system_contains("You are a subagent"), Script().text("sub done"))
    fake_model.script.text("main done")

    async def both(
        client: anthropic.AsyncAnthropic,
    ) -> tuple[anthropic.types.Message, anthropic.types.Message]:
        return await asyncio.gather(
            create(client, system="You are the main agent"),
            create(client, system=[{"type": "text", "text": "You are a subagent."}]),
        )

    main, subagent = drive(fake_model, both)
    assert main.content[0].text == "main done"  # type: ignore[union-attr]
    assert subagent.content[0].text == "sub done"  # type: ignore[union-attr]
    assert sub.pending() == 0


def test_respond_decides_from_the_request(fake_model: FakeAnthropic) -> None:
    fake_model.script.respond(lambda body: f"{len(body['messages'])} messages", times=2)
    fake_model.script.respond(lambda body: Reply([{"type": "text", "text": body["model"]}]))
    fake_model.script.respond(lambda body: Script().error(529)).text("after")

    async def four(client: anthropic.AsyncAnthropic) -> list[str]:
        texts = []
        for _ in range(4):
            message = await create(client)
            texts.append(message.content[0].text)  # type: ignore[union-attr]
        return texts

    assert drive(fake_model, four) == ["1 messages", "1 messages", "claude-fake", "after"]


def test_usage_simulates_prompt_caching(fake_model: FakeAnthropic) -> None:
    fake_model.script.text("one").text("two").text("three", usage={"output_tokens": 99})
    system = [{"type": "text", "text": "S" * 4000, "cache_control": {"type": "ephemeral"}}]
    first = [{"role": "user", "content": [{"type": "text", "text": "Q" * 400}]}]
    second = [
        *first,
        {"role": "assistant", "content": "one"},
        {
            "role": "user",
            "content": [{"type": "text", "text": "more", "cache_control": {"type": "ephemeral"}}],
        },
    ]

    async def three(client: anthropic.AsyncAnthropic) -> list[anthropic.types.Usage]:
        a = await create(client, system=system, messages=first)
        b = await create(client, system=system, messages=second)
        c = await create(client, system=system, messages=second)
        return [a.usage, b.usage, c.usage]

    a, b, c = drive(fake_model, three)
    assert a.cache_read_input_tokens == 0
    assert a.cache_creation_input_tokens is not None
    assert 1000 <= a.cache_creation_input_tokens < 1020  # the system block, ~4000 chars / 4
    assert b.cache_read_input_tokens == a.cache_creation_input_tokens
    assert b.cache_creation_input_tokens is not None
    assert b.cache_creation_input_tokens > 100  # the messages up to the newest breakpoint
    assert c.cache_read_input_tokens == b.cache_read_input_tokens + b.cache_creation_input_tokens
    assert c.cache_creation_input_tokens == 0
    assert c.output_tokens == 99
    for usage in (a, b, c):
        assert usage.input_tokens > 0


def test_count_tokens(fake_model: FakeAnthropic) -> None:
    async def count(client: anthropic.AsyncAnthropic) -> int:
        result = await client.messages.count_tokens(model="claude-fake", messages=HI)
        return result.input_tokens

    assert drive(fake_model, count) > 0
    assert fake_model.bodies() == []
    assert fake_model.bodies("/v1/messages/count_tokens") == [
        {"model": "claude-fake", "messages": HI}
    ]


def test_fake_env(fake_env: dict[str, str], fake_model: FakeAnthropic) -> None:
    assert fake_env["ANTHROPIC_BASE_URL"] == fake_model.base_url
    assert fake_env["ANTHROPIC_API_KEY"].startswith("sk-test-")
    assert "ANTHROPIC_AUTH_TOKEN" not in fake_env
    assert fake_env["NO_COLOR"] == "1"
