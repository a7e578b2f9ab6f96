"""Runs one subagent for `task`: a fresh conversation under its own system prompt, the parent's
tools without `task` (and without the planning and compaction tools) plus `submit_note`, the
parent's gate (permissions, hooks) and workspace, and its own turn limit.

Isolated: the conversation, the file-read guard, the events (none reach the parent's stream).
Shared: the workspace, the gate, the model client, the usage totals. Whatever happens (a note,
prose, the turn limit, an API failure, a cancel), a note is stored and its log kept.

The status is the runner's: only a run that handed in a note is `completed`. Each note is checked
against the workspace and the run's recorded tool calls (review.py); failed evidence gets one
fix-up turn."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field, replace
from functools import partial

from agent_cli.core.events import ErrorEvent, NoteAdded, SubagentProgress, TurnEnd, UsageUpdate
from agent_cli.core.events import ToolEnd as ToolEndEvent
from agent_cli.core.history import last_assistant_text
from agent_cli.core.payloads import Note, NoteFigures, NoteStatus
from agent_cli.core.text.redaction import redact
from agent_cli.core.tool_contract import ToolContext
from agent_cli.model.client import ModelClient
from agent_cli.model.usage import Usage
from agent_cli.policy.turn_hooks import TurnHooks
from agent_cli.session.state import Session
from agent_cli.session.transcript import NoteRecord
from agent_cli.subagent.child import ChildFactory, ChildLoop, subagent_system
from agent_cli.subagent.grounding import commands_run, files_read, fixup_prompt, needs_fixup, shown
from agent_cli.subagent.ledger import CallLedger, RecordingGate
from agent_cli.subagent.note import (
    UNPARSED,
    NoteBody,
    extract_body,
    new_note_id,
    trim,
)
from agent_cli.subagent.note_render import render
from agent_cli.subagent.process_log import LoggedClient, ProcessLog
from agent_cli.subagent.profile import SubagentProfile
from agent_cli.subagent.review import check_evidence, checker_for, reviewed
from agent_cli.subagent.store import NoteStore
from agent_cli.subagent.submit_note import SubmitNote
from agent_cli.tools.registry import SourceView, ToolRegistry

log = logging.getLogger(__name__)

# not offered to subagents: no nesting, no plan of their own, no compaction pipeline to ask
EXCLUDED_TOOLS = ("task", "todo_write", "compact")
REASK_TURNS = 2
FIXUP_TURNS = 3  # model requests of the fix-up turn: room to re-read a file, then submit
REASK = (
    "You ended without handing in your note. Call submit_note now with your conclusion, "
    "evidence, file_refs, open_issues and confidence (or reply with only that JSON object)."
)
_CUT_OFF = {
    "max_turns": "cut off at the turn limit ({limit} model requests) before handing in a note",
    "error": "cut off by an API failure before handing in a note: {error}",
    "interrupted": "cut off: the run was interrupted before handing in a note",
}


@dataclass
class _Run:
    """One subagent run: what it was asked, where it logs, and what it observed."""

    note_id: str
    description: str
    prompt: str
    call_id: str
    ctx: ToolContext  # the parent's
    log: ProcessLog
    started: float = field(default_factory=time.monotonic)
    submitted: NoteBody | None = None
    turns: int = 0
    tool_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    error: str = ""
    ledger: CallLedger = field(default_factory=CallLedger)
    handed_in: NoteBody | None = None  # the note as first handed in, before a fix-up turn
    profile: SubagentProfile | None = None  # the subagent type, if `task` named one

    def submit(self, body: NoteBody) -> None:
        self.submitted = body


@dataclass
class SubagentRunner:
    parent: Session
    client: ModelClient
    store: NoteStore
    spawn: ChildFactory
    # the parent's tool set, bound by build once it is complete (the `task` tool is in it)
    tools: ToolRegistry | None = None
    # SubagentStop hooks (project files), around each of the child's turns
    child_hooks: TurnHooks | None = None
    _slots: asyncio.Semaphore | None = None

    def bind(self, parent_tools: ToolRegistry) -> None:
        self.tools = parent_tools

    def child_tools(self, run: _Run) -> ToolRegistry:
        assert self.tools is not None, "SubagentRunner.bind() was not called"
        profile = run.profile
        gate = (profile.gate if profile else None) or self.tools.gate
        parent = self.tools.without(*EXCLUDED_TOOLS)
        tools = [*parent.fixed.values(), SubmitNote(run.submit)]
        source = SourceView(parent.source) if parent.source else None  # the parent's MCP tools
        recording = RecordingGate(gate, run.ledger, skip=("submit_note",))
        registry = ToolRegistry(tools, recording, source)
        return profile.narrow(registry, ("submit_note",)) if profile else registry

    async def run(
        self,
        description: str,
        prompt: str,
        ctx: ToolContext,
        call_id: str,
        profile: SubagentProfile | None = None,
    ) -> Note:
        """At most `subagent.concurrency` runs at once; the others wait their turn."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.parent.settings.subagent.concurrency)
        async with self._slots:
            note_id = new_note_id()
            process = ProcessLog(self.store.log_path(note_id), partial(redact, secrets=ctx.secrets))
            run = _Run(note_id, description, prompt, call_id, ctx, process, profile=profile)
            return await self._run(run)

    async def _run(self, run: _Run) -> Note:
        child = self._child(run)
        run.log.section(f"subagent {run.note_id}: {run.description}", child.system[0]["text"])
        status: NoteStatus
        try:
            status, body = await self._converse(child, run)
        except asyncio.CancelledError:
            self._finish(child, run, "interrupted", self._cut_off(child, run, "interrupted"))
            raise
        except Exception as e:  # a bug must still leave a note and never crash the parent
            log.exception("subagent %s failed", run.note_id)
            run.error = f"{type(e).__name__}: {e}"
            status, body = "error", self._cut_off(child, run, "error")
        return self._finish(child, run, status, body)

    def _child(self, run: _Run) -> ChildLoop:
        # own read guard and touched set; the workspace, paths, secrets and settings are shared
        child_ctx = replace(run.ctx, file_state={}, touched=set())
        settings, profile = self.parent.settings, run.profile
        session = Session(
            id=run.note_id,
            model=(profile.model if profile else None) or self.parent.model,
            settings=settings,
            tool_ctx=child_ctx,
            usage_sink=partial(self._account, run),
        )
        return self.spawn(
            session=session,
            client=LoggedClient(self.client, run.log),
            registry=self.child_tools(run),
            system=subagent_system(run.ctx.workspace, profile),
            max_turns=(profile.max_turns if profile else None) or settings.subagent.max_turns,
            caller=f"subagent:{run.note_id}",
            stop_after_round=lambda: run.submitted is not None,
            turn_hooks=self.child_hooks,
        )

    async def _converse(self, child: ChildLoop, run: _Run) -> tuple[NoteStatus, NoteBody]:
        end = await self._turn(child, run, run.prompt)
        if end.stop != "done":
            return end.stop, self._cut_off(child, run, end.stop)
        body = run.submitted or extract_body(end.text)
        if body is not None:
            return "completed", await self._review(child, run, body)
        child.max_turns = REASK_TURNS
        end = await self._turn(child, run, REASK)
        body = run.submitted or extract_body(end.text)
        if body is not None:
            return "completed", await self._review(child, run, body)
        if end.stop in ("error", "interrupted"):
            return end.stop, self._cut_off(child, run, end.stop)
        text = last_assistant_text(child.session.messages)
        return "completed", NoteBody(
            conclusion=text or "(no text)", open_issues=[UNPARSED], confidence="low"
        )

    async def _review(self, child: ChildLoop, run: _Run, body: NoteBody) -> NoteBody:
        """One fix-up turn when the evidence fails; then the note is taken as it stands."""
        checks = check_evidence(body, checker_for(run.ledger, child.session.tool_ctx))
        if not needs_fixup(checks):
            return body
        run.handed_in, run.submitted = body, None
        child.max_turns = FIXUP_TURNS
        end = await self._turn(child, run, fixup_prompt(checks))
        return run.submitted or extract_body(end.text) or body

    async def _turn(self, child: ChildLoop, run: _Run, prompt: str) -> TurnEnd:
        """One turn of the child; its events are counted here and never reach the parent (the
        count of its tool calls does, for the parent's spinner)."""
        end = TurnEnd(stop="error", text="", rounds=0)
        async for event in child.run_turn(prompt):
            if isinstance(event, ToolEndEvent) and event.name != "submit_note":
                run.tool_calls += 1
                self._progress(run)
            elif isinstance(event, ErrorEvent):
                run.error = event.message
            elif isinstance(event, TurnEnd):
                end = event
        run.turns += end.rounds
        return end

    def _account(self, run: _Run, event: UsageUpdate) -> None:
        """The child's calls count into the parent session (totals, transcript, and its sink)."""
        usage = Usage(
            input_tokens=event.input_tokens,
            output_tokens=event.output_tokens,
            cache_read_input_tokens=event.cache_read_input_tokens,
            cache_creation_input_tokens=event.cache_creation_input_tokens,
        )
        run.usage = run.usage + usage
        self.parent.account(usage, event.caller, self.parent.model)

    def _progress(self, run: _Run) -> None:
        """The parent's spinner line for this run: its tool calls, time and spend so far (the
        calls answered before the tool call that just ended)."""
        took = time.monotonic() - run.started
        spent = run.usage.cost(self.parent.settings.prices.get(self.parent.model))
        progress = SubagentProgress(
            id=run.call_id, tool_calls=run.tool_calls, elapsed_s=round(took, 1), cost_usd=spent
        )
        run.ctx.emit(progress)

    def _cut_off(self, child: ChildLoop, run: _Run, stop: str) -> NoteBody:
        """Work done is not lost: the last text and the files touched, marked as cut off."""
        limit = self.parent.settings.subagent.max_turns
        reason = _CUT_OFF.get(stop, _CUT_OFF["error"]).format(limit=limit, error=run.error)
        if run.handed_in is not None:
            reason = f"cut off during the fix-up turn ({stop}): the note is as first handed in"
        text = last_assistant_text(child.session.messages)
        written = run.handed_in or extract_body(text)  # a note, though the run did not end on it
        if written is not None:
            issues = [*written.open_issues, reason]
            return written.model_copy(update={"open_issues": issues})  # review lowers it
        touched = sorted(shown(p, run.ctx.workspace) for p in child.session.tool_ctx.touched)
        return NoteBody(
            conclusion=text or "(the subagent wrote no text before it was cut off)",
            file_refs=touched,
            open_issues=[reason],
            confidence="low",
        )

    def _finish(self, child: ChildLoop, run: _Run, status: NoteStatus, body: NoteBody) -> Note:
        run.log.messages(child.session.messages)  # results the child never sent on
        note = self._note(child, run, status, body)
        note.figures.seconds = round(time.monotonic() - run.started, 2)
        note.figures.note_chars = len(render(note))
        self.store.save(note)
        run.log.section("note", note.model_dump_json(indent=2))
        self.parent.record(NoteRecord(note=note.model_dump(mode="json")))
        run.ctx.emit(NoteAdded(note=note))
        run.ctx.touched |= child.session.tool_ctx.touched
        log.info("subagent %s (%s): %s", note.id, run.description, note.status)
        return note

    def _note(self, child: ChildLoop, run: _Run, status: NoteStatus, body: NoteBody) -> Note:
        trimmed, notes = trim(body)
        log_ref = shown(run.log.path, run.ctx.workspace)
        refs = list(dict.fromkeys([log_ref, *trimmed.file_refs]))
        clean = partial(redact, secrets=run.ctx.secrets)
        note = Note(
            id=run.note_id,
            session_id=self.parent.id,
            description=clean(run.description),
            task=clean(run.prompt),
            parent_tool_use_id=run.call_id,
            status=status,
            conclusion=clean(trimmed.conclusion),
            evidence=[clean(e) for e in trimmed.evidence],
            file_refs=refs,
            fixup_offered=run.handed_in is not None,
            open_issues=[clean(i) for i in trimmed.open_issues],
            confidence=trimmed.confidence,
            trimmed=notes,
            log_path=log_ref,
            agent_type=run.profile.name if run.profile else None,
            color=(run.profile.color or None) if run.profile else None,
            figures=NoteFigures(
                turns=run.turns,
                tool_calls=run.tool_calls,
                input_tokens=run.usage.context_tokens,
                output_tokens=run.usage.output_tokens,
                process_chars=len(json.dumps(child.session.messages, ensure_ascii=False)),
                files_read=files_read(run.ledger, run.ctx),
                commands=commands_run(run.ledger, run.ctx.secrets),
            ),
        )
        return reviewed(note, body, run.ledger, child.session.tool_ctx)
