"""`agent attach NAME` with its output piped (a terminal gets the chat screen:
attach_link.py): lines of a running background session, as an ACP client of its socket
(acp_session.py is the other side). Its conversation is redrawn, the live turn printed
as it goes, a waiting approval asked here (y, a, n; the first answer of any attached client
wins), a typed line sent as steering (the turn reads it at its next tool boundary). Ctrl-D or
Ctrl-C detaches: the session goes on."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path
from typing import Any, TextIO

from agent_cli.core.errors import UsageError
from agent_cli.ext.background import registry
from agent_cli.ext.background.acp.attach_dialogs import Dialog
from agent_cli.ext.background.acp.attach_rpc import AttachError, Rpc, connect
from agent_cli.ext.background.acp.wire import ANSWER, TURN_END, WAITING

KEYS = {"y": "allow_once", "a": "allow_always", "n": "reject_once"}
SHOWN_LINES = 12  # of an approval's diff or preview
PROTOCOL_VERSION = 1  # the ACP version this client speaks
Options = list[dict[str, Any]]


def _text(update: dict[str, Any]) -> str:
    content = update.get("content")
    return str(content.get("text", "")) if isinstance(content, dict) else ""


class Viewer:
    """The client side: what the session sends, printed; its approvals asked."""

    def __init__(self, out: TextIO, workspace: str = "") -> None:
        self.out, self.workspace = out, workspace
        self.streaming = False  # mid-reply: the next line starts on a new one
        self.asking: tuple[str, Options, asyncio.Future[str]] | None = None
        self.dialog: Dialog | None = None  # a question or plan waiting

    async def handle(self, method: str, params: dict[str, Any]) -> Any:
        """What the session sends: its requests answered, its notifications shown."""
        if method == "session/update":
            self.update(params.get("update") or {})
        elif method == "session/request_permission":
            return await self.permission(params.get("toolCall") or {}, params.get("options") or [])
        elif method == f"_{WAITING}":
            self.dialog = Dialog(params, self.line)
        elif method == f"_{TURN_END}":
            self.line(f"── its turn ended ({params.get('stop')}) ──")
        return None

    def line(self, text: str) -> None:
        if self.streaming:
            self.out.write("\n")
            self.streaming = False
        self.out.write(text + "\n")
        self.out.flush()

    def update(self, update: dict[str, Any]) -> None:
        kind = update.get("sessionUpdate")
        if kind == "agent_message_chunk":
            self.out.write(_text(update))
            self.out.flush()
            self.streaming = True
        elif kind == "user_message_chunk":
            self.line(f"you> {_text(update)}")
        elif kind == "tool_call":
            self.line(f"● {update.get('title', '')}")
        elif kind == "tool_call_update":
            self._progress(update)
        elif kind == "plan":
            entries = update.get("entries") or []
            self.line("plan: " + "; ".join(f"[{e['status']}] {e['content']}" for e in entries))

    def _progress(self, update: dict[str, Any]) -> None:
        if self.asking is not None and self.asking[0] == update.get("toolCallId"):
            if not self.asking[2].done():
                self.asking[2].set_result("")  # another client answered it first
            self.line("  (answered elsewhere)")
        if update.get("status") == "failed":
            self.line(f"  ✗ {update.get('title') or 'failed'}")
        elif update.get("status") == "completed" and update.get("title"):
            self.line(f"  ✓ {update['title']}")

    async def permission(self, call: dict[str, Any], options: Options) -> dict[str, Any]:
        self.line(f"? allow {call.get('title', '')}?")
        for shown in _shown(call, self.workspace)[:SHOWN_LINES]:
            self.line(f"  {shown}")
        keys = [k for k, kind in KEYS.items() if any(o["optionId"] == kind for o in options)]
        self.line("  " + "  ".join(f"{k}: {_name(KEYS[k], options)}" for k in keys))
        answered: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.asking = (str(call.get("toolCallId")), options, answered)
        try:
            chosen = await answered
        finally:
            self.asking = None
        if not chosen:
            return {"outcome": {"outcome": "cancelled"}}
        return {"outcome": {"outcome": "selected", "optionId": chosen}}

    def answer(self, typed: str) -> bool:
        """A typed line as the answer to the approval asked; False when none is asked."""
        if self.asking is None:
            return False
        _call, options, answered = self.asking
        chosen = KEYS.get(typed.strip().lower()[:1], "")
        if not any(o["optionId"] == chosen for o in options):
            self.line("  answer with one of the letters above")
        elif not answered.done():
            answered.set_result(chosen)
        return True


def _name(option_id: str, options: Options) -> str:
    return str(next(o["name"] for o in options if o["optionId"] == option_id))


def _shown(call: dict[str, Any], workspace: str) -> list[str]:
    lines: list[str] = []
    for item in call.get("content") or []:
        if item.get("type") == "diff":
            lines.append(f"{str(item['path']).removeprefix(workspace + os.sep)}:")
            lines += [f"+ {line}" for line in str(item.get("newText", "")).splitlines()]
        else:
            lines += _text((item.get("content") and item) or {}).splitlines()
    return lines


class Typed:
    """Lines typed on stdin, None at its end (Ctrl-D). A stdin that cannot be watched (a
    file, /dev/null) types nothing: attach then watches until the session ends or Ctrl-C."""

    def __init__(self) -> None:
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()
        self.partial = b""
        with contextlib.suppress(OSError, ValueError):
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
    viewer = Viewer(out, str(record.data["workspace"]))
    try:
        rpc = await connect(str(record.data["socket"]), viewer.handle)
    except OSError as e:
        raise UsageError(f"{record.name} does not answer on its socket ({e.strerror})") from e
    sid, cwd = str(record.data["session_id"]), str(record.data["workspace"])
    try:
        await rpc.request("initialize", {"protocolVersion": PROTOCOL_VERSION})
        await rpc.request("session/load", {"cwd": cwd, "sessionId": sid, "mcpServers": []})
    except AttachError as e:
        raise UsageError(f"{record.name}: {e}") from e
    viewer.line(f"── attached to {record.name}: type to steer it; Ctrl-D detaches (it goes on) ──")
    detached = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, detached.set)
    try:
        return await _talk(rpc, sid, viewer, Typed(), detached)
    finally:
        rpc.writer.close()


async def _talk(rpc: Rpc, sid: str, viewer: Viewer, typed: Typed, detached: asyncio.Event) -> str:
    stop = asyncio.ensure_future(detached.wait())
    while True:
        line_ready = asyncio.ensure_future(typed.lines.get())
        await asyncio.wait({line_ready, rpc.gone, stop}, return_when=asyncio.FIRST_COMPLETED)
        if rpc.gone.done() or stop.done():
            line_ready.cancel()
            stop.cancel()
            return "ended" if rpc.gone.done() else "detached"
        line = line_ready.result()
        if line is None:
            stop.cancel()
            return "detached"
        try:
            await _typed(rpc, sid, viewer, line)
        except AttachError as e:
            viewer.line(f"  not taken: {e}")


async def _typed(rpc: Rpc, sid: str, viewer: Viewer, line: str) -> None:
    """A typed line: the approval's answer, the question's or plan's, else steering."""
    if viewer.answer(line):
        return
    if viewer.dialog is not None:
        given = viewer.dialog.take(line)
        if given is not None:
            viewer.dialog = None
            reply = await rpc.request(f"_{ANSWER}", given)
            if not reply.get("ok"):
                viewer.line(f"  not taken: {reply.get('error')}")
    elif line.strip():
        prompt = [{"type": "text", "text": line}]
        await rpc.request("session/prompt", {"sessionId": sid, "prompt": prompt})
        viewer.line("  (sent: it reads this at its next step)")


def attach(found: registry.Record, acp: bool = False) -> None:
    """`agent attach`'s work on the session `found` (cli.find)."""
    record, name = found.as_read(), found.name
    if record.state not in registry.LIVE:
        raise UsageError(f"{name} has ended ({record.state}): agent logs {name} shows what it did")
    if not record.data.get("session_id"):
        raise UsageError(f"{name} is still starting: attach again in a moment")
    if acp:
        from agent_cli.ext.background.acp.acp_bridge import bridge

        bridge(record)
        return
    if sys.stdin.isatty() and sys.stdout.isatty():  # the chat screen; lines for a pipe
        from agent_cli.ext.background.acp.attach_link import attach_screen

        how = attach_screen(record)
    else:
        how = asyncio.run(attach_to(record, sys.stdout))
    now = registry.read(Path(record.path))
    if how == "ended":
        state = now.as_read().state if now is not None else "gone"
        sys.stdout.write(f"\n{name} ended ({state}): agent logs {name} shows what it did\n")
    else:
        sys.stdout.write(f"\ndetached: {name} goes on (agent attach {name} comes back)\n")
