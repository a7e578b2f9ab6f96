"""Builders for context-pipeline tests: sessions on a scratch state dir, a scripted in-process
model client (no SDK involved: the pipeline's own seam), and histories."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from agent_cli.context.ports import StageContext
from agent_cli.core import errors
from agent_cli.core.events import Event
from agent_cli.core.files.paths import Paths
from agent_cli.core.messages import Block, Message
from agent_cli.core.settings.schema import ContextSettings, Settings
from agent_cli.core.tool_contract import ToolContext
from agent_cli.model.client import Final, ModelClient, ModelReply, ModelRequest, StreamEvent
from agent_cli.model.usage import Usage
from agent_cli.session.state import Session
from agent_cli.session.transcript import TranscriptWriter

SESSION_ID = "20250101-000000-abcdef"


def small_settings(**context: Any) -> Settings:
    """Thresholds small enough for histories of a few kilobytes."""
    defaults: dict[str, Any] = {
        "result_budget_chars": 8_000,
        "snip_trigger": 50,
        "snip_target": 30,
        "micro_threshold_tokens": 4_000,
        "micro_target_tokens": 2_000,
        "summary_threshold_tokens": 8_000,
    }
    return Settings(context=ContextSettings(**{**defaults, **context}), tool_preview_chars=200)


def make_session(
    state_dir: Path, settings: Settings | None = None, request: str | None = "do the task"
) -> Session:
    settings = settings or small_settings()
    paths = Paths(state_dir)
    ctx = ToolContext(workspace=state_dir, paths=paths, session_id=SESSION_ID, settings=settings)
    session = Session(
        id=SESSION_ID,
        model=settings.model,
        settings=settings,
        tool_ctx=ctx,
        transcript=TranscriptWriter(paths.transcript(SESSION_ID)),
    )
    session.current_request = request
    return session


class FakeClient:
    """Answers each request from `replies` in order (a string is a text reply, an exception is
    raised); once they run out, every request gets `default`."""

    def __init__(
        self, replies: Sequence[str | Exception | list[Block]] = (), default: str = "SUMMARY"
    ) -> None:
        self.replies = list(replies)
        self.default = default
        self.requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        # the loop keeps appending to the list it sent: keep what was sent at the time
        self.requests.append(dataclasses.replace(request, messages=list(request.messages)))
        item = self.replies.pop(0) if self.replies else self.default
        if isinstance(item, Exception):
            raise item
        content = [{"type": "text", "text": item}] if isinstance(item, str) else item
        calls = any(b.get("type") == "tool_use" for b in content)
        reply = ModelReply(
            content=content,
            stop_reason="tool_use" if calls else "end_turn",
            usage=Usage(input_tokens=100, output_tokens=20),
            model="claude-fake",
        )
        yield Final(reply)

    async def close(self) -> None:
        return None


_client_checked: type[ModelClient] = FakeClient  # mypy: the fake is a ModelClient


def context_for(
    session: Session,
    client: ModelClient | None = None,
    events: list[Event] | None = None,
    last_usage: Usage | None = None,
    sent: int = 0,
) -> StageContext:
    sink = events if events is not None else []
    return StageContext(
        session=session,
        client=client or FakeClient(),
        emit=sink.append,
        last_usage=last_usage,
        last_request_messages=sent,
    )


_ids = itertools.count(1)


def user(text: str) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def assistant(text: str) -> Message:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def tool_round(*contents: str, name: str = "read_file") -> list[Message]:
    """An assistant message calling one tool per content, and the user message of results."""
    ids = [f"toolu_{next(_ids):05d}" for _ in contents]
    calls = [{"type": "tool_use", "id": i, "name": name, "input": {"path": i}} for i in ids]
    results = [
        {"type": "tool_result", "tool_use_id": i, "content": c}
        for i, c in zip(ids, contents, strict=True)
    ]
    return [{"role": "assistant", "content": calls}, {"role": "user", "content": results}]


def history(rounds: int, result_chars: int, request: str = "do the task") -> list[Message]:
    """The request, then `rounds` tool rounds of one result each (the last one not yet seen)."""
    messages = [user(request)]
    for n in range(rounds):
        messages += tool_round(f"result {n} " + "x" * result_chars)
    return messages


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def prepare(
    stages: Sequence[Any], messages: list[Message], ctx: StageContext
) -> list[Message]:
    """What the loop does before a request: each stage in order, replacing the history."""
    for stage in stages:
        compacted = await stage.apply(messages, ctx)
        if compacted is not None:
            messages = compacted.messages
    return messages


def request_body(messages: list[Message]) -> dict[str, Any]:
    return {"model": "claude-fake", "max_tokens": 100, "messages": messages}


PROMPT_TOO_LONG = errors.PromptTooLongError(
    "The prompt is too long for the model: prompt is too long"
)


def tool_call(name: str, **args: Any) -> Block:
    return {"type": "tool_use", "id": f"toolu_{next(_ids):05d}", "name": name, "input": args}
