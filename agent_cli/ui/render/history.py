"""History on resume: the restored conversation drawn into scrollback as it was shown live.

Prompts as `you>` lines, replies (markdown), each tool call as the line and preview it had live
(the tool's own summary, kept beside the messages: session/transcript.py `ShownRecord`), and
one line where a compaction replaced what came before. What the agent added to a prompt is shown
as what it is, never as typed by the user: an attached file as `@path (N lines)`, a `!command`
as the command and its call, queued text as sent to the model, an interrupt as its marker, the
agent's own texts (a job's end, a hook's context, a goal's feedback: `notice` records) in their
own style; a failed turn's error, a goal's check and a thought where they were shown.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from agent_cli.core import history
from agent_cli.core.events import Event, ToolEnd, ToolStart
from agent_cli.core.markers import ATTACHED_RE as ATTACHED
from agent_cli.core.markers import SHELL
from agent_cli.core.messages import blocks_of
from agent_cli.core.text.counts import counted
from agent_cli.session.resume import Boundary, RestoredSession
from agent_cli.session.transcript import ShownRecord
from agent_cli.ui.render import render

IN_PLACE = ("error", "goal")  # records drawn where they were written
THINKING = ("thinking", "redacted_thinking")


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "\n".join(str(b.get("text", "")) for b in parts if b.get("type") == "text")


@dataclass
class _Redraw:
    width: int
    color: bool
    results: dict[str, dict[str, Any]]  # tool_use id -> its tool_result block
    shown: dict[str, ShownRecord] = field(default_factory=dict)  # tool_use id -> its line
    shell: list[ShownRecord] = field(default_factory=list)  # `!command` lines, in order
    steered: list[str] = field(default_factory=list)  # queued texts the model was given
    notices: list[ShownRecord] = field(default_factory=list)  # the agent's texts as the user's
    thoughts: list[str] = field(default_factory=list)  # `thought for 3s`, one a thinking block
    out: list[str] = field(default_factory=list)
    calls: Callable[[Event], None] | None = None  # told of each call (Ctrl-O's log)
    running: Collection[str] = ()  # calls still running: shown live, not here

    def item(self, item: dict[str, Any] | Boundary | ShownRecord) -> None:
        if isinstance(item, Boundary) and item.stage == "fresh_context":  # an approved plan's
            before = counted(item.replaced, "message")
            self.info(f"⇣ a fresh context from the approved plan: {before} before")
        elif isinstance(item, Boundary):
            self.info(f"⇣ compacted ({item.stage}): {item.replaced} earlier messages summarised")
        elif isinstance(item, ShownRecord) and item.kind in IN_PLACE:
            self.in_place(item)
        elif isinstance(item, ShownRecord):
            pass  # taken before (`took`)
        elif item["role"] == "user":
            for block in blocks_of(item):
                if block.get("type") == "text" and str(block["text"]).strip():
                    self.user_text(str(block["text"]))
        else:
            self.assistant(item)

    def took(self, record: ShownRecord) -> None:
        """Before anything is drawn: a call's line is recorded after the call's message."""
        if record.kind in IN_PLACE:
            return  # drawn where it happened (`item`)
        if record.kind == "notice":
            self.notices.append(record)
        elif record.kind == "thought":
            self.thoughts.append(record.text)
        elif record.kind == "steered":
            self.steered.append(record.text)
        elif record.id == "user-shell":
            self.shell.append(record)
        else:
            self.shown[record.id] = record

    def in_place(self, record: ShownRecord) -> None:
        """A failed turn's error, a goal's check: the line the screen had."""
        if record.kind == "error":
            self.out.append(render.error_line(record.text, self.width, self.color))
        else:
            self.info(f"◎ {record.text}", "yellow" if record.is_error else "green")

    def notice(self, text: str) -> bool:
        """A text the agent gave the model as the user's, in its own style; False if not one."""
        record = next((n for n in self.notices if n.text == text), None)
        if record is None:
            return False
        self.notices.remove(record)
        first = text.strip().split("\n")[0]
        if record.id == "job":  # `[background job j2 `cmd` ended: exit 0 after 3 s]`
            self.info(f"⚑ {first.strip('[]')}")
        elif record.id != "wake":  # the turn a job started: its notice says it
            self.info(f"↳ to the model: {render.short(first, max(self.width - 16, 10))}")
        return True

    def info(self, text: str, style: str = "dim") -> None:
        self.out.append(render.info_line(text, self.width, self.color, style))

    def user_text(self, text: str) -> None:
        if text == history.USER_INTERRUPTED:
            self.info("⏹ interrupted", "yellow")
        elif attached := ATTACHED.match(text):
            lines = text[attached.end() :].count("\n") + 1
            self.info(f"  @{attached.group(1)} ({lines} line{'s' if lines != 1 else ''})")
        elif ran := SHELL.match(text):
            self.user_shell(ran.group(1), text[ran.end() :])
        elif self.notice(text):
            pass
        elif text in self.steered:
            self.steered.remove(text)
            self.info(f"↳ sent to the model: {' '.join(text.split())[:200]}")
        else:
            self.out.append(render.user_line(text, self.width, self.color))

    def user_shell(self, command: str, output: str) -> None:
        self.out.append(render.user_line(f"!{command}", self.width, self.color))
        record = self.shell.pop(0) if self.shell else None
        summary = record.text if record else f"bash {command}"
        failed = record.is_error if record else False
        self.call("user-shell", "bash", summary, failed, output)

    def assistant(self, message: dict[str, Any]) -> None:
        for block in blocks_of(message):
            kind = block.get("type")
            if kind in THINKING:  # folded as live (the record says for how long)
                took = self.thoughts.pop(0) if self.thoughts else "thought"
                self.info(f"✻ {took}", "dim italic")
            elif kind == "text" and str(block["text"]).strip():
                self.out.append(render.markdown(str(block["text"]), self.width, self.color) + "\n")
            elif kind == "tool_use":
                self.tool_use(block)

    def tool_use(self, block: dict[str, Any]) -> None:
        use_id, name = str(block.get("id")), str(block.get("name"))
        label = render.tool_label(name, dict(block.get("input") or {}))
        if use_id in self.running and use_id not in self.results:
            return
        result = self.results.get(use_id, {})
        output = _text_of(result.get("content"))
        if output == history.INTERRUPTED:
            self.info(f"⏹ {label} (cancelled)")
            return
        if name == "present_plan" and (plan := dict(block.get("input") or {}).get("plan")):
            self.out.append(render.markdown(str(plan), self.width, self.color) + "\n")
        record = self.shown.pop(use_id, None)
        summary = record.text if record else label
        failed = record.is_error if record else bool(result.get("is_error"))
        if self.calls is not None:
            self.calls(ToolStart(id=use_id, name=name, input=dict(block.get("input") or {})))
        self.call(use_id, name, summary, failed, output)

    def call(self, use_id: str, name: str, summary: str, failed: bool, output: str) -> None:
        event = ToolEnd(id=use_id, name=name, is_error=failed, summary=summary, output=output)
        self.out.append(render.tool_end(event, self.width, self.color))
        if self.calls is not None:
            self.calls(event)


def history_lines(
    restored: RestoredSession,
    width: int,
    color: bool,
    calls: Callable[[Event], None] | None = None,
    running: Collection[str] = (),
) -> list[str]:
    """What scrollback shows of a resumed session, oldest first; `calls` is told of each tool
    call drawn (its start and end), so Ctrl-O's view holds the earlier session's calls too.
    `running`: calls without a result yet that are running (an attached background
    session's), drawn live rather than here."""
    items = restored.conversation()
    results = {
        str(b.get("tool_use_id")): b
        for m in items
        if isinstance(m, dict) and m["role"] == "user"
        for b in blocks_of(m)
        if b.get("type") == "tool_result"
    }
    redraw = _Redraw(width, color, results, calls=calls, running=running)
    for record in items:
        if isinstance(record, ShownRecord):
            redraw.took(record)
    redraw.info(f"── session {restored.id} · {restored.started[:16]} ──")
    for item in items:
        redraw.item(item)
    return redraw.out
