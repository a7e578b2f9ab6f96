"""`agent attach NAME`: a terminal on a running background session, as an ACP client of its
socket (acp_session.py is the other side). Its conversation is redrawn, the live turn printed
as it goes, a waiting approval asked here (y, a, n; the first answer of any attached client
wins), a typed line sent as steering (the turn reads it at its next tool boundary). Ctrl-D or
Ctrl-C detaches: the session goes on."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any, TextIO

from acp import PROTOCOL_VERSION, text_block
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileEditToolCallContent,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
    UserMessageChunk,
)

from agent_cli.core.errors import UsageError
from agent_cli.ext.background import registry
from agent_cli.ext.background.attach_dialogs import Dialog
from agent_cli.ext.background.wire import ANSWER, LIMIT, TURN_END, WAITING, relayed

KEYS = {"y": "allow_once", "a": "allow_always", "n": "reject_once"}
SHOWN_LINES = 12  # of an approval's diff or preview


def _text(update: Any) -> str:
    return str(getattr(update.content, "text", ""))


class Viewer:
    """The client side: what the session sends, printed; its approvals asked."""

    def __init__(self, out: TextIO, workspace: str = "") -> None:
        self.out, self.workspace = out, workspace
        self.streaming = False  # mid-reply: the next line starts on a new one
        self.asking: tuple[str, list[PermissionOption], asyncio.Future[str]] | None = None
        self.dialog: Dialog | None = None  # a question or plan waiting

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        if method == WAITING:
            self.dialog = Dialog(params, self.line)
        elif method == TURN_END:
            self.line(f"── its turn ended ({params.get('stop')}) ──")

    def line(self, text: str) -> None:
        if self.streaming:
            self.out.write("\n")
            self.streaming = False
        self.out.write(text + "\n")
        self.out.flush()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if isinstance(update, AgentMessageChunk):
            self.out.write(_text(update))
            self.out.flush()
            self.streaming = True
        elif isinstance(update, UserMessageChunk):
            self.line(f"you> {_text(update)}")
        elif isinstance(update, ToolCallStart):
            self.line(f"● {update.title}")
        elif isinstance(update, ToolCallProgress):
            self._progress(update)
        elif isinstance(update, AgentPlanUpdate):
            self.line("plan: " + "; ".join(f"[{e.status}] {e.content}" for e in update.entries))

    def _progress(self, update: ToolCallProgress) -> None:
        if self.asking is not None and self.asking[0] == update.tool_call_id:
            if not self.asking[2].done():
                self.asking[2].set_result("")  # another client answered it first
            self.line("  (answered elsewhere)")
        if update.status == "failed":
            self.line(f"  ✗ {update.title or 'failed'}")
        elif update.status == "completed" and update.title:
            self.line(f"  ✓ {update.title}")

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate, **kw: Any
    ) -> RequestPermissionResponse:
        self.line(f"? allow {tool_call.title}?")
        for shown in _shown(tool_call, self.workspace)[:SHOWN_LINES]:
            self.line(f"  {shown}")
        keys = [k for k, kind in KEYS.items() if any(o.option_id == kind for o in options)]
        self.line("  " + "  ".join(f"{k}: {_name(KEYS[k], options)}" for k in keys))
        answered: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.asking = (tool_call.tool_call_id, options, answered)
        try:
            chosen = await answered
        finally:
            self.asking = None
        if not chosen:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=chosen)
        )

    def answer(self, typed: str) -> bool:
        """A typed line as the answer to the approval asked; False when none is asked."""
        if self.asking is None:
            return False
        _call, options, answered = self.asking
        chosen = KEYS.get(typed.strip().lower()[:1], "")
        if not any(o.option_id == chosen for o in options):
            self.line("  answer with one of the letters above")
        elif not answered.done():
            answered.set_result(chosen)
        return True


def _name(option_id: str, options: list[PermissionOption]) -> str:
    return next(o.name for o in options if o.option_id == option_id)


def _shown(call: ToolCallUpdate, workspace: str) -> list[str]:
    lines: list[str] = []
    for item in call.content or []:
        if isinstance(item, FileEditToolCallContent):
            lines.append(f"{item.path.removeprefix(workspace + os.sep)}:")
            lines += [f"+ {line}" for line in item.new_text.splitlines()]
        else:
            lines += str(getattr(getattr(item, "content", None), "text", "")).splitlines()
    return lines


class Typed:
    """Lines typed on stdin, None at its end (Ctrl-D)."""

    def __init__(self) -> None:
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()
        self.partial = b""
        asyncio.get_running_loop().add_reader(0, self._read)

    def _read(self) -> None:
        chunk = os.read(0, 4096)
        if not chunk:
            asyncio.get_running_loop().remove_reader(0)
            self.lines.put_nowait(None)
            return
        *whole, self.partial = (self.partial + chunk).split(b"\n")
        for line in whole:
            self.lines.put_nowait(line.decode("utf-8", "replace"))


async def attach_to(record: registry.Record, out: TextIO) -> str:
    """Attached until detached or the session ends; which it was."""
    try:
        reader, writer = await asyncio.open_unix_connection(str(record.data["socket"]), limit=LIMIT)
    except OSError as e:
        raise UsageError(f"{record.name} does not answer on its socket ({e.strerror})") from e
    inner, gone = relayed(b"", reader)
    viewer = Viewer(out, str(record.data["workspace"]))
    conn = ClientSideConnection(lambda _agent: viewer, writer, inner)  # type: ignore[arg-type,return-value]
    await conn.initialize(
        protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities()
    )
    sid = str(record.data["session_id"])
    await conn.load_session(cwd=str(record.data["workspace"]), session_id=sid, mcp_servers=[])
    viewer.line(f"── attached to {record.name}: type to steer it; Ctrl-D detaches (it goes on) ──")
    detached = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, detached.set)
    typed = Typed()
    try:
        return await _talk(conn, sid, viewer, typed, gone, detached)
    finally:
        writer.close()


async def _talk(
    conn: ClientSideConnection,
    sid: str,
    viewer: Viewer,
    typed: Typed,
    gone: asyncio.Task[None],
    detached: asyncio.Event,
) -> str:
    stop = asyncio.ensure_future(detached.wait())
    while True:
        line_ready = asyncio.ensure_future(typed.lines.get())
        await asyncio.wait({line_ready, gone, stop}, return_when=asyncio.FIRST_COMPLETED)
        if gone.done() or stop.done():
            line_ready.cancel()
            stop.cancel()
            return "ended" if gone.done() else "detached"
        line = line_ready.result()
        if line is None:
            stop.cancel()
            return "detached"
        if viewer.answer(line):
            continue
        if viewer.dialog is not None:
            await _answer(conn, viewer, line)
        elif line.strip():
            await conn.prompt(session_id=sid, prompt=[text_block(line)])
            viewer.line("  (sent: it reads this at its next step)")


async def _answer(conn: ClientSideConnection, viewer: Viewer, line: str) -> None:
    assert viewer.dialog is not None
    given = viewer.dialog.take(line)
    if given is None:
        return
    viewer.dialog = None
    reply = await conn.ext_method(ANSWER, given)
    if not reply.get("ok"):
        viewer.line(f"  not taken: {reply.get('error')}")


def attach(found: registry.Record, acp: bool = False) -> None:
    """`agent attach`'s work on the session `found` (cli.find)."""
    record, name = found.as_read(), found.name
    if record.state not in registry.LIVE:
        raise UsageError(f"{name} has ended ({record.state}): agent logs {name} shows what it did")
    if not record.data.get("session_id"):
        raise UsageError(f"{name} is still starting: attach again in a moment")
    if acp:
        from agent_cli.ext.background.acp_bridge import bridge

        bridge(record)
        return
    how = asyncio.run(attach_to(record, sys.stdout))
    now = registry.read(Path(record.path))
    if how == "ended":
        state = now.as_read().state if now is not None else "gone"
        sys.stdout.write(f"\n{name} ended ({state}): agent logs {name} shows what it did\n")
    else:
        sys.stdout.write(f"\ndetached: {name} goes on (agent attach {name} comes back)\n")
