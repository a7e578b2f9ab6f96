"""The Runtime's part for done-means-proven: the evidence ledger of each session (fed from
every turn's events), the claims of each final answer marked against it, and the goal being
pursued, turn after turn, until its check passes (SPEC §1, §4, §13)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from agent_cli.core.events import ErrorEvent, Event, FilesChanged, TurnEnd
from agent_cli.core.messages import Block
from agent_cli.core.verify_events import ClaimMark, ClaimsChecked, GoalChecked
from agent_cli.ext.checkpoints.rewind import open_store
from agent_cli.ext.goals import evaluator
from agent_cli.ext.goals.claims import check
from agent_cli.ext.goals.goal import Goal, Limits, gave_up
from agent_cli.ext.goals.ledger import EvidenceLedger, exit_code_of
from agent_cli.model.client import Final, ModelRequest

if TYPE_CHECKING:
    from agent_cli.core.events import ToolEnd
    from agent_cli.core.files.paths import Paths
    from agent_cli.core.options import Options
    from agent_cli.core.settings.schema import Settings
    from agent_cli.loop.agent import Agent
    from agent_cli.model.client import ModelClient
    from agent_cli.session.state import Session


class Goals:
    """Mixed into the Runtime, which provides these."""

    session: Session
    options: Options
    _client: ModelClient | None
    goal: Goal | None = None  # pursued across the turns of submit() and turn()
    _ledgers: dict[str, EvidenceLedger] | None = None  # each session's evidence, made on first use

    @property
    def settings(self) -> Settings:
        raise NotImplementedError

    @property
    def paths(self) -> Paths:
        raise NotImplementedError

    def _running(self) -> AbstractContextManager[None]:
        raise NotImplementedError

    async def agent(self) -> Agent:
        raise NotImplementedError

    @property
    def ledger(self) -> EvidenceLedger:
        """The current session's evidence: its commands and edits, in order."""
        if self._ledgers is None:
            self._ledgers = {}
        return self._ledgers.setdefault(self.session.id, EvidenceLedger())

    def set_goal(
        self, check: str | None, kind: str = "command", limits: Limits | None = None
    ) -> Goal | None:
        """`/goal CMD`, `/goal "TEXT"`, `--goal-check`, `--goal`; None ends the goal."""
        if check is None or not check.strip():
            self.goal = None
            return None
        goal = self.settings.goal
        limits = limits or Limits(
            goal.max_turns, goal.max_minutes, self.settings.budget.max_cost_usd
        )
        self.goal = Goal(check.strip(), "words" if kind == "words" else "command", limits)
        self.goal.cost_at_start = self.session.priced_usd
        return self.goal

    def observe_shell(self, command: str, event: ToolEnd) -> ToolEnd:
        """A `!command` the user ran is evidence too."""
        self.ledger.record_command(command, exit_code_of(event.output), event.output)
        return event

    async def _one_turn(self, text: str, content: str | list[Block] | None) -> AsyncIterator[Event]:
        """Its answer's claims marked against the evidence (the agent's turn wrappers take a
        checkpoint of the workspace first)."""
        agent = await self.agent()
        with self._running():
            turn = agent.run_turn(text if content is None else content)
            async for event in self.verified(turn):
                yield event

    async def verified(self, events: AsyncIterator[Event]) -> AsyncIterator[Event]:
        """The turn's events into the ledger; the final answer's claims, marked, before TurnEnd."""
        async for event in events:
            self.ledger.feed(event)
            if isinstance(event, TurnEnd) and event.text.strip():
                extra = self.settings.verify.commands
                marks = [ClaimMark(**c.as_json()) for c in check(event.text, self.ledger, extra)]
                if marks:
                    yield ClaimsChecked(claims=marks)
            yield event

    async def pursue(self, text: str, content: str | list[Block] | None) -> AsyncIterator[Event]:
        """One turn, or with a goal the turns it takes: after each, the check; when it fails,
        what it said is the next message."""
        goal = self.goal
        if goal is None or not goal.active:
            async for event in self._one_turn(text, content):
                yield event
            return
        message: str | list[Block] = _with(
            content if content is not None else text, goal.instruction()
        )
        while True:
            turn = _TurnSeen()
            async for event in self._one_turn(text, message):
                turn.see(event)
                yield event
            async for event in self._after_turn(goal, turn):
                yield event
            if not goal.active:
                return
            text = message = goal.feedback()

    async def _after_turn(self, goal: Goal, turn: _TurnSeen) -> AsyncIterator[Event]:
        goal.tick(self.session.priced_usd)
        ended = turn.ended
        if ended is None or ended.stop == "error":
            budget = turn.error_kind == "BudgetExceeded"
            goal.end("budget-limited" if budget else "unmet", turn.error or "the turn ended early")
        elif (reason := gave_up(ended.text)) is not None:
            goal.end("impossible", reason)
        else:
            with self._running():  # Ctrl-C stops the check as it stops a turn
                async for event in self._check(goal, turn.files, turn.checkpoint):
                    yield event
            goal.tick(self.session.priced_usd)
            if goal.active and (why := goal.limit_reached(self.session.priced_usd)):
                budget = goal.limits.max_cost_usd is not None and "--max-cost" in why
                goal.end("budget-limited" if budget else "unmet", why)
        yield GoalChecked(goal=goal.status.model_copy())

    async def _check(self, goal: Goal, files: list[str], checkpoint: str) -> AsyncIterator[Event]:
        if goal.kind == "command":
            from agent_cli.ext.goals.check_run import run_check  # the sandbox's, when one runs

            settings = self.settings.goal
            run = await run_check(goal.check, self.options.workspace, self.settings.sandbox,
                                  settings.check_timeout_s, settings.output_chars)  # fmt: skip
            self.ledger.record_command(run.command, run.exit_code, run.output)
            goal.record(run.exit_code == 0, run.exit_code, run.output)
            return
        diff = await asyncio.to_thread(self._turn_diff, checkpoint)
        runs = self.ledger.since_last_change()
        evidence = evaluator.evidence_text(goal.check, runs, diff, files)
        usage: list[Event] = []
        judged = await self._evaluate(evidence, usage)
        for event in usage:
            yield event
        goal.record(judged.verdict == "met", None, "", judged.reason)
        if judged.verdict == "impossible":
            goal.end("impossible", judged.reason)

    async def _evaluate(self, evidence: str, usage: list[Event]) -> evaluator.Judgement:
        """The evaluator's one call, no tools; its usage is the session's, told as it ends."""
        if self._client is None:
            return evaluator.Judgement("not met", "no model client")
        system, ask = evaluator.request_blocks(evidence)
        request = ModelRequest(model=self.session.model, system=system, tools=[],
                               messages=[{"role": "user", "content": ask}],
                               max_tokens=1_000, caller=evaluator.CALLER)  # fmt: skip
        sink, self.session.usage_sink = self.session.usage_sink, usage.append
        reply = None
        try:
            async for item in self._client.stream(request):
                if isinstance(item, Final):
                    reply = item.reply
            if reply is not None:
                self.session.account(reply.usage, evaluator.CALLER, reply.model)
        finally:
            self.session.usage_sink = sink
        return (
            evaluator.judge(reply.text()) if reply else evaluator.Judgement("not met", "no reply")
        )

    def _turn_diff(self, checkpoint_id: str) -> str:
        store = open_store(self.paths, self.options.workspace, self.settings.checkpoints)
        if store is None or not checkpoint_id:
            return ""
        try:
            start = store.find(checkpoint_id)
            end = store.after_tree(start)
            if end is None:
                return ""
            return store.git.run("diff", "--no-color", start.tree, end).decode("utf-8", "replace")
        except Exception:  # evidence is best effort: the files named still say what changed
            return ""


def _with(content: str | list[Block], note: str) -> list[Block]:
    blocks: list[Block] = (
        [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    )
    return [*blocks, {"type": "text", "text": note}]


class _TurnSeen:
    """What the pursuit needs of a turn's events: how it ended and what it changed."""

    def __init__(self) -> None:
        self.ended: TurnEnd | None = None
        self.files: list[str] = []
        self.checkpoint = ""
        self.error = ""
        self.error_kind = ""

    def see(self, event: Event) -> None:
        if isinstance(event, TurnEnd):
            self.ended = event
        elif isinstance(event, FilesChanged):
            self.files, self.checkpoint = event.files, event.checkpoint_id
        elif isinstance(event, ErrorEvent):
            self.error, self.error_kind = event.message, event.kind
