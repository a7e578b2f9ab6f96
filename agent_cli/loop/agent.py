"""`Agent.run_turn`: the user's request, then rounds of (model request -> tools) until the model
answers without tool use, the turn limit is reached, or the turn is cancelled.

The loop yields typed events and never imports the UI.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

from agent_cli.context.ports import (
    Compacted,
    Compactor,
    Guide,
    Stage,
    StageContext,
    TurnObserver,
)
from agent_cli.core import errors, history
from agent_cli.core.events import (
    CompactionDone,
    ErrorEvent,
    Event,
    TurnEnd,
)
from agent_cli.core.files.logs import FILE_ONLY
from agent_cli.core.messages import Block
from agent_cli.core.tool_contract import ToolResult
from agent_cli.loop import server_turn, steering
from agent_cli.loop.outbox import Outbox, Passed
from agent_cli.loop.shown import ShownTurn, record_shown
from agent_cli.loop.stream_events import ShownStream
from agent_cli.loop.turn_edges import TurnEdges
from agent_cli.loop.turn_state import TurnState, goes_on
from agent_cli.model.client import Final, ModelClient, ModelReply, ModelRequest
from agent_cli.model.usage import Usage
from agent_cli.policy.turn_hooks import FollowUp, TurnHooks, TurnWrapper
from agent_cli.session.state import Session
from agent_cli.tools.registry import ToolRegistry

log = logging.getLogger(__name__)


@dataclass
class Agent:
    session: Session
    client: ModelClient
    registry: ToolRegistry
    system: list[Block]
    stages: Sequence[Stage] = ()
    guides: Sequence[Guide] = ()
    compactor: Compactor | None = None
    # hear the user's message, every event of the turn and each round's end (episodic memory)
    observers: Sequence[TurnObserver] = ()
    max_turns: int | None = None
    caller: str = "main"
    # ends the turn once a tool round is over and this says so (a subagent handed in its note)
    stop_after_round: Callable[[], bool] | None = None
    # user_prompt_submit (may veto the turn) and stop hooks (SPEC §12)
    turn_hooks: TurnHooks | None = None
    # what wraps each turn's events (an extension's checkpoint), the first the outermost
    wrappers: Sequence[TurnWrapper] = ()
    outbox: Outbox = field(default_factory=Outbox)  # where memory and stages emit too
    _last_usage: Usage | None = None
    _last_request_messages: int = 0
    _thinking: int | None = None  # the turn's thinking budget: one mode a whole turn (the API's)
    _shown: ShownStream = field(init=False)  # text and thinking as shown: secrets masked
    _edges: TurnEdges = field(init=False)  # the message in, the observers, the hooks at its end

    def __post_init__(self) -> None:
        self._shown = ShownStream(self.session.tool_ctx.secrets)
        self._edges = TurnEdges(self.session, self.observers, self.turn_hooks, self.wrappers)
        if self.caller == "main":
            self._edges.shown = ShownTurn(self.session)
        self.session.tool_ctx.emit = self.emit
        if self.session.usage_sink is None:  # the runtime may route usage elsewhere
            self.session.usage_sink = self.emit

    def emit(self, event: Event) -> None:
        if self.caller == "main":
            record_shown(self.session, event)
        self.outbox.emit(event)

    def stage_context(self) -> StageContext:
        return StageContext(
            session=self.session,
            client=self.client,
            emit=self.emit,
            last_usage=self._last_usage,
            last_request_messages=self._last_request_messages,
        )

    def run_turn(self, prompt: str | list[Block]) -> AsyncIterator[Event]:
        blocks: list[Block] = (
            [{"type": "text", "text": prompt}] if isinstance(prompt, str) else prompt
        )
        turn = self._run_turn(blocks)
        for wrapper in reversed(self.wrappers):
            turn = wrapper.around(blocks, turn)
        return turn

    async def _run_turn(self, blocks: list[Block]) -> AsyncIterator[Event]:
        if vetoed := await self._edges.begin(blocks):
            for event in vetoed:
                yield event
            return
        going_on = True
        while going_on:  # the outbox is drained here: one generator less for every event
            going_on = False
            async for item in self._turn():
                for event in self.outbox.passed(item):
                    told = await self._edges.ending(event) if isinstance(event, TurnEnd) else []
                    if told is None:  # a Stop hook keeps the turn working
                        going_on = True
                        break
                    for each in told:
                        yield each
                    self.hear(event)
                    yield event
                if going_on:
                    break
            for event in [] if going_on else self.outbox.pending():
                self.hear(event)
                yield event

    async def follow_up(self) -> FollowUp | None:
        """Once a turn is over: what its hooks add (events), and the next message they send
        (a goal not yet met); None when there is nothing."""
        return await self._edges.follow_up()

    def hear(self, event: Event) -> None:
        """Every observer hears `event` (the turn's, or a `!command` the user ran)."""
        self._edges.hear(event)

    async def compact_now(self, focus: str | None) -> AsyncIterator[Event]:
        """/compact [focus] between turns."""
        self.session.request_compaction(focus)
        async for event in self.outbox.drain(self._apply_requested_compaction()):
            yield event

    async def _turn(self) -> AsyncIterator[Event | Passed]:
        self._thinking = self.session.settings.thinking.budget_tokens  # /think: the next turn
        turn = TurnState()
        while True:
            if self.max_turns is not None and turn.requests >= self.max_turns:
                limit = f"--max-turns {self.max_turns}"
                message = f"Stopped after {turn.requests} model requests ({limit})."
                yield ErrorEvent(kind="MaxTurnsError", message=message, exit_code=1)
                yield turn.end("max_turns")
                return
            async for item in self._reply(turn):
                yield item
            reply = turn.reply
            if reply is None:  # the request failed: its error and the turn's end are out
                return
            if not reply.content:
                yield turn.end("done")
                return
            server_turn.store_reply(self.session, reply.content)
            calls = reply.tool_uses()
            if calls:
                turn.text_parts = []
                async for item in self._tool_round(calls, reply):
                    yield item
                if self.stop_after_round is not None and self.stop_after_round():
                    yield TurnEnd(stop="done", text="", rounds=turn.requests)
                    return
                continue
            turn.text_parts.append(reply.text())
            if not goes_on(turn, reply, self.session, self.caller):
                yield turn.end("done")
                return

    async def _tool_round(
        self, calls: list[Block], reply: ModelReply
    ) -> AsyncIterator[Event | Passed]:
        """The reply's calls run, then a compaction a tool asked for (e.g. a fresh context)."""
        from agent_cli.loop.rounds import not_run_calls

        async for passed in self._run_tools(calls, not_run_calls(reply)):
            yield passed
        async for compaction in self._apply_requested_compaction():
            yield compaction

    async def _reply(self, turn: TurnState) -> AsyncIterator[Event | Passed]:
        """One request streamed out, its reply counted and kept in `turn.reply` — or, when the
        request fails, its error and the turn's end, with `turn.reply` None."""
        turn.reply = None
        reply: ModelReply | None = None
        try:
            async for item in self._request():
                if isinstance(item, ModelReply):
                    reply = item
                else:
                    yield item
        except asyncio.CancelledError:  # the user stopped the turn mid-reply
            for left in history.interrupted_reply(self._shown.interrupted()):
                self.session.append(left)
            raise
        except errors.AgentError as e:
            log.warning("turn failed: %s", e, extra=FILE_ONLY)  # the user sees the ErrorEvent
            yield ErrorEvent(kind=type(e).__name__, message=str(e), exit_code=e.exit_code)
            yield turn.end("error")
            return
        assert reply is not None
        if self.caller == "main":
            self.session.model_wait.answered()
        turn.requests += 1
        self._last_usage = reply.usage
        self.session.account(reply.usage, self.caller, reply.model)  # announced via the sink
        if (cited := server_turn.sources_event(reply.content)) is not None:
            yield cited
        turn.reply = reply

    async def _request(self) -> AsyncIterator[Event | ModelReply]:
        """One model request, with at most one reactive compaction on prompt-too-long. Its
        stream is shown here, item by item: one generator less for every delta."""
        recovered, shown = False, self._shown
        while True:
            if self.caller == "main" and (steered := steering.deliver(self.session)):
                record_shown(self.session, steered)
                yield steered
            async for event in self._prepare():
                yield event
            request = self._build_request()
            shown.streamed.clear()
            try:
                async for item in self.client.stream(request):
                    for event in shown.events(item):
                        yield event
                    if isinstance(item, Final):
                        self._last_request_messages = len(request.messages)
                        yield item.reply
                return
            except errors.AgentError as e:
                for event in shown.cut():  # the request failed: what was held back is shown
                    yield event
                if not isinstance(e, errors.PromptTooLongError):
                    raise
                compacted = await self._recover(e, recovered)
                recovered = True
                yield self._replace_history(compacted)

    async def _recover(self, e: errors.PromptTooLongError, recovered: bool) -> Compacted:
        """The history compacted after a prompt too long, once per request (§8); else the
        error, with what to do about it."""
        compacted = None
        if not recovered and self.compactor is not None:
            messages, ctx = self.session.messages, self.stage_context()
            compacted = await self.compactor.recover(messages, ctx)
        if compacted is None:
            raise errors.PromptTooLongError(f"{e} {errors.TOO_LONG_HINT}") from e
        return compacted

    def _build_request(self) -> ModelRequest:
        messages = self.session.messages
        guidance: list[Block] = []
        for guide in [] if server_turn.ends_with_reply(self.session) else self.guides:
            guidance.extend(guide.guidance(messages))
        settings = self.session.settings
        if self.caller == "main":  # its request is about to go out
            self.session.model_wait.request_sent()
        return ModelRequest(
            model=self.session.model,
            system=self.system,
            messages=messages,
            tools=self.registry.schemas,
            max_tokens=settings.max_tokens,
            guidance=guidance,
            caller=self.caller,
            thinking_budget=self._thinking,
            interleaved_thinking=settings.thinking.interleaved,
            cache_ttl=settings.cache_ttl.for_caller(self.caller),
        )

    async def _prepare(self) -> AsyncIterator[Event]:
        for stage in self.stages:
            compacted = await stage.apply(self.session.messages, self.stage_context())
            if compacted is not None:
                yield self._replace_history(compacted)

    def _replace_history(self, compacted: Compacted) -> CompactionDone:
        before = len(self.session.messages)
        self.session.replace_messages(compacted.messages, compacted.stage, compacted.archive_path)
        return CompactionDone(
            stage=compacted.stage,
            messages_before=before,
            messages_after=len(compacted.messages),
            tokens_before=compacted.tokens_before,
            tokens_after=compacted.tokens_after,
            archive_path=compacted.archive_path,
        )

    async def _apply_requested_compaction(self) -> AsyncIterator[Event]:
        request = self.session.take_compaction_request()
        if request is not None and request.fresh is not None:
            yield self._replace_history(Compacted(request.fresh, "fresh_context"))
            return
        if request is None or self.compactor is None:
            return
        messages, ctx = self.session.messages, self.stage_context()
        compacted = await self.compactor.compact(messages, request.focus, ctx)
        if compacted is not None:
            yield self._replace_history(compacted)

    async def _run_tools(
        self, calls: list[Block], refused: dict[str, str] | None = None
    ) -> AsyncIterator[Passed]:
        """Every call gets exactly one result, also when the turn is cancelled mid-round.
        Tool events are passed on while the round runs, so the UI shows live progress."""
        from agent_cli.loop.rounds import run_round

        for pending in self.outbox.pending():  # the reply's usage, before any tool starts
            yield Passed(pending)
        done: dict[str, ToolResult] = {}
        ctx = self.session.tool_ctx
        task = asyncio.ensure_future(run_round(calls, self.registry, ctx, self.emit, done, refused))
        try:
            async for passed in self.outbox.while_running(task):
                yield passed
            results = task.result()
        except BaseException:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task  # let the tools kill their processes before the results are written
            finished_blocks = {i: _result_block(i, r) for i, r in done.items()}
            self.session.append(history.interrupted_results(calls, finished_blocks))
            raise
        content = [_result_block(c["id"], r) for c, r in zip(calls, results, strict=True)]
        self.session.append({"role": "user", "content": content})
        for guide in self.guides:
            guide.after_round(calls, results)
        for observer in self.observers:
            observer.on_round_end()


def _result_block(tool_use_id: str, result: ToolResult) -> Block:
    return history.tool_result_block(tool_use_id, result.content, result.is_error, result.blocks)
