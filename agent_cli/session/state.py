"""The state of one session: history, usage, transcript, plan, the tools' context."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent_cli.core.events import UsageUpdate
from agent_cli.core.files.line_views import LinePart
from agent_cli.core.files.paths import Paths
from agent_cli.core.messages import Message
from agent_cli.core.settings.schema import Settings
from agent_cli.core.tool_contract import ToolContext
from agent_cli.model.usage import Usage
from agent_cli.session.model_wait import ModelWait
from agent_cli.session.owner import SessionOwner
from agent_cli.session.transcript import CallCostRecord, TranscriptWriter, UsageRecord, _Record
from agent_cli.todo.tracker import TodoTracker


def new_session_id() -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


@dataclass(frozen=True)
class CompactionRequest:
    focus: str | None
    # a new context window given whole (an approved plan's fresh start): no summary is made
    fresh: list[Message] | None = None


@dataclass
class Session:
    id: str
    model: str
    settings: Settings
    tool_ctx: ToolContext
    transcript: TranscriptWriter | None = None
    # the lock that makes this process the transcript's one writer (session/owner.py)
    owner: SessionOwner | None = None
    title: str = ""  # /rename's, shown in session lists (and the terminal's title)
    messages: list[Message] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    priced_usd: float = 0.0  # the cost of the calls whose model has a price
    unpriced: dict[str, Usage] = field(default_factory=dict)  # model -> usage without a price
    # the user's request of the current turn, verbatim: compaction never loses it (SPEC §8)
    current_request: str | None = None
    # where every model call's usage is announced (the runtime routes it to the turn's events
    # or to its listeners); None: accounted, not announced
    usage_sink: Callable[[UsageUpdate], None] | None = None
    # the `compact` tool or /compact asked: compaction runs once the round has all its results
    _compaction: CompactionRequest | None = None
    # sections put back in view after a summary compaction (the todo list, project instructions)
    view_providers: list[Callable[[], str]] = field(default_factory=list)
    # the session's plan (SPEC §6): one tracker per session, never shared between agents
    todos: TodoTracker = field(default_factory=TodoTracker)
    # whether the main turn is busy or waiting on the model (background work waits for that)
    model_wait: ModelWait = field(default_factory=ModelWait)

    @property
    def paths(self) -> Paths:
        return self.tool_ctx.paths

    def release(self) -> None:
        """Let go of the transcript's lock and file (this process writes no more to it)."""
        if self.transcript is not None:
            self.transcript.close()
        if self.owner is not None:
            self.owner.release()

    def hold_again(self) -> None:
        if self.owner is not None:
            self.owner.take_again()

    def record(self, record: _Record) -> None:
        if self.transcript is not None:
            self.transcript.append(record)

    def record_call(self, raw: dict[str, Any]) -> None:
        """A judged model call (model/calls.py's sink), kept in the transcript."""
        self.record(CallCostRecord.model_validate(raw))

    def append(self, message: Message) -> None:
        self.messages.append(message)
        if self.transcript is not None:
            self.transcript.message(message)

    def locate(self, message: Message) -> tuple[Path, LinePart] | None:
        """The transcript line that holds this very message, if it is written as it is."""
        if self.transcript is None:
            return None
        part = self.transcript.locate(message)
        return None if part is None else (self.transcript.path, part)

    def replace_messages(
        self, messages: list[Message], stage: str, archive_path: str | None = None
    ) -> None:
        """A compaction: the new live context, recorded as references to what it keeps."""
        replaced = len(self.messages)
        self.messages = messages
        if self.transcript is not None:
            self.transcript.compaction(stage, messages, archive_path, replaced)

    def add_usage(self, usage: Usage, model: str) -> None:
        self.usage = self.usage + usage
        cost = usage.cost(self.settings.prices.get(model) or self.settings.prices.get(self.model))
        if cost is None:
            self.unpriced[model] = self.unpriced.get(model, Usage()) + usage
        else:
            self.priced_usd += cost
        for name, waiting in list(self.unpriced.items()):  # priced since (settings): it settles
            settled = waiting.cost(self.settings.prices.get(name))
            if settled is not None:
                self.priced_usd += settled
                del self.unpriced[name]

    @property
    def cost_usd(self) -> float | None:
        """The whole session's cost; None while a model used has no price."""
        return None if self.unpriced else self.priced_usd

    def account(self, usage: Usage, caller: str, model: str) -> None:
        """The one place a model call of any caller (main, summariser, episode, subagent) is
        counted: into the totals and the transcript, then announced through `usage_sink`."""
        self.add_usage(usage, model)
        counts = usage.model_dump()
        self.record(UsageRecord(caller=caller, model=model, usage=counts))
        if self.usage_sink is not None:
            self.usage_sink(
                UsageUpdate(
                    caller=caller,
                    **counts,
                    context_tokens=usage.context_tokens + usage.output_tokens,
                    context_window=self.settings.context_window(self.model),
                    session_cost_usd=self.cost_usd,
                    priced_cost_usd=self.priced_usd,
                )
            )

    def request_compaction(self, focus: str | None) -> None:
        """Compact once every call of the current round has its result (or now, between turns)."""
        self._compaction = CompactionRequest(focus)

    def request_fresh_context(self, messages: list[Message]) -> None:
        """Once the round has its results, `messages` replace the live context (behind a
        compaction boundary in the transcript)."""
        self._compaction = CompactionRequest(None, fresh=messages)

    def take_compaction_request(self) -> CompactionRequest | None:
        request, self._compaction = self._compaction, None
        return request
