"""`agent attach NAME` on a terminal: the chat screen (attach_screen.py) joined to the
session's socket. The client asks for the session's own events (acp_events.py), loads the
session and writes its history to the terminal as `agent chat --resume` draws it (from the
transcript, up to where the session was as this client joined: what came after arrives as
events) before the screen is even loaded; then the screen starts below it, and what arrived
meanwhile is applied, in order."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.core.errors import UsageError
from agent_cli.ext.background import registry
from agent_cli.ext.background.acp.attach_history import DRAW, history, joined_line
from agent_cli.ext.background.acp.attach_rpc import AttachError, Rpc, connect
from agent_cli.ext.background.acp.wire import EVENTS

if TYPE_CHECKING:
    from agent_cli.ext.background.acp.attach_screen import AttachedChat
    from agent_cli.ui.render.tool_log import ToolLog

PROTOCOL_VERSION = 1
Pending = list[tuple[str, dict[str, Any]]]


class Link:
    """The socket's side of one attached screen."""

    def __init__(self, record: registry.Record) -> None:
        self.record = record
        self.sid, self.cwd = str(record.data["session_id"]), str(record.data["workspace"])
        self.chat: AttachedChat | None = None
        self.pending: Pending = []  # arrived before the screen was ready
        self.rpc: Rpc | None = None
        self.how = "detached"
        self.error: Exception | None = None
        self.tools: ToolLog | None = None  # Ctrl-O's: the history's calls, then the live ones
        self.width, self.color = shutil.get_terminal_size().columns, not os.environ.get("NO_COLOR")

    async def handle(self, method: str, params: dict[str, Any]) -> None:
        if self.chat is None:
            self.pending.append((method, params))
        else:
            await self.chat.handle(method, params)

    async def send(self, method: str, params: dict[str, Any]) -> Any:
        assert self.rpc is not None
        if method.startswith("session/"):
            params = {"sessionId": self.sid, **params}
        return await self.rpc.request(method, params)

    async def main(self) -> None:
        """Joined, its history written to the terminal, then the screen until the session
        ends or the screen is left."""
        try:
            meta = await self._join()
        except (OSError, AttachError) as e:
            why = e.strerror if isinstance(e, OSError) else str(e)
            self.error = UsageError(f"{self.record.name} does not answer on its socket ({why})")
            return
        self._draw(meta)  # before the screen's own imports and first frame: at once
        from agent_cli.ext.background.acp.attach_screen import AttachedChat
        from agent_cli.ui.render.tool_log import ToolLog
        from agent_cli.ui.screen.live import ChatScreen

        if self.tools is None:  # the session drew the history: Ctrl-O's log needs its calls
            self.tools = ToolLog()
            history(meta, self.width, self.color, self.tools.feed, self._running())
        screen = ChatScreen(None)
        chat = AttachedChat(screen, self.record.name, self.send, self.tools)
        kept: set[asyncio.Task[None]] = set()

        def boot() -> None:
            screen.attach(chat)
            kept.add(asyncio.ensure_future(self._live(chat, bool(meta.get("busy")))))

        try:
            await screen.run(boot)
        finally:
            assert self.rpc is not None
            self.rpc.writer.close()
            for task in kept:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    def _running(self) -> set[str]:
        """The open calls' ids: their starts were sent before the load's answer."""
        return {
            str(params["event"].get("id"))
            for method, params in self.pending
            if method == "_agent/event" and params["event"].get("type") == "tool_start"
        }

    def _draw(self, meta: dict[str, Any]) -> None:
        lines = meta.get("lines")
        if not isinstance(lines, list):  # a session that did not draw them: drawn here
            from agent_cli.ui.render.tool_log import ToolLog

            self.tools = ToolLog()
            lines = history(meta, self.width, self.color, self.tools.feed, self._running())
            lines.append(joined_line(self._joined(), self.width, self.color))
        sys.stdout.write("\n".join(str(line) for line in lines) + "\n")
        sys.stdout.flush()

    def _joined(self) -> str:
        return f"── attached to {self.record.name}: type to steer it; Ctrl-D detaches ──"

    async def _live(self, chat: AttachedChat, busy: bool) -> None:
        if busy:
            chat.started()
        while self.pending:  # in order, with what arrives meanwhile; then straight to it
            method, params = self.pending.pop(0)
            await chat.handle(method, params)
        self.chat = chat
        chat.attention.notify = await asyncio.to_thread(_notify, Path(self.cwd))
        assert self.rpc is not None
        await self.rpc.gone
        self.how = "ended"
        chat.screen.exit()

    async def _join(self) -> dict[str, Any]:
        self.rpc = await connect(str(self.record.data["socket"]), self.handle)
        draw = {"width": self.width, "color": self.color, "joined": self._joined()}
        capabilities = {"_meta": {EVENTS: True, DRAW: draw}}
        start = {"protocolVersion": PROTOCOL_VERSION, "clientCapabilities": capabilities}
        await self.rpc.request("initialize", start)
        load = {"cwd": self.cwd, "sessionId": self.sid, "mcpServers": []}
        loaded = await self.rpc.request("session/load", load)
        meta = (loaded or {}).get("_meta") or {}
        return dict(meta.get("agent/history") or {})


def _notify(workspace: Path) -> Any:
    """This user's and workspace's `notify` settings (the ping's)."""
    from agent_cli.core.settings.features import NotifySettings
    from agent_cli.core.settings.schema import load_settings

    try:
        return load_settings(workspace).notify
    except Exception:  # a bad settings file: the defaults; `agent chat` there says why
        return NotifySettings()


def attach_screen(record: registry.Record) -> str:
    """The chat screen on `record`'s session until detached or it ends; which it was."""
    link = Link(record)
    asyncio.run(link.main())
    if link.error is not None:
        raise link.error
    return link.how
