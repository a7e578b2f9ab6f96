"""`agent attach NAME` on a terminal: the chat screen (attach_screen.py) joined to the
session's socket. The screen draws first; then the client asks for the session's own events
(acp_events.py), loads the session, draws its history from the transcript as `agent chat
--resume` draws it (up to where the session was as this client joined: what came after
arrives as events), and hands the screen its controller; what arrived meanwhile is applied
then, in order."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_cli.core.errors import UsageError
from agent_cli.core.events import Event
from agent_cli.ext.background import registry
from agent_cli.ext.background.acp.attach_rpc import AttachError, Rpc, connect
from agent_cli.ext.background.acp.attach_screen import AttachedChat
from agent_cli.ext.background.acp.wire import EVENTS
from agent_cli.ui.render.history import history_lines
from agent_cli.ui.screen.live import ChatScreen

PROTOCOL_VERSION = 1
Pending = list[tuple[str, dict[str, Any]]]


def history(
    meta: dict[str, Any], width: int, color: bool, calls: Callable[[Event], None], running: set[str]
) -> list[str]:
    """The transcript's first `size` bytes (its whole lines) drawn as a resumed chat draws it;
    the `running` calls are drawn live (their starts follow)."""
    from agent_cli.session.boundary import LineReader
    from agent_cli.session.resume import RestoredSession
    from agent_cli.session.transcript import SessionRecord

    path, size = Path(str(meta.get("transcript") or "")), int(meta.get("size") or 0)
    if not size:
        return []
    with path.open("rb") as f:
        head = f.read(size)
    with tempfile.TemporaryDirectory(prefix="agent-attach-") as folder:
        copy = Path(folder) / path.name  # the id is the file's name
        copy.write_bytes(head[: head.rfind(b"\n") + 1])
        first = LineReader(copy).record_at(0)
        started = first.started if isinstance(first, SessionRecord) else ""
        restored = RestoredSession(id=path.stem, path=copy, started=started)
        return history_lines(restored, width, color, calls, running)


class Link:
    """The socket's side of one attached screen."""

    def __init__(self, screen: ChatScreen, record: registry.Record) -> None:
        self.screen, self.record = screen, record
        self.sid, self.cwd = str(record.data["session_id"]), str(record.data["workspace"])
        self.chat: AttachedChat | None = None
        self.pending: Pending = []  # arrived before the history was drawn
        self.rpc: Rpc | None = None
        self.how = "detached"
        self.error: Exception | None = None

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

    async def run(self) -> None:
        """Joined until the session ends or the screen is left."""
        try:
            meta = await self._join()
        except (OSError, AttachError) as e:
            why = e.strerror if isinstance(e, OSError) else str(e)
            self.error = UsageError(f"{self.record.name} does not answer on its socket ({why})")
            self.screen.exit()
            return
        chat = AttachedChat(self.screen, self.record.name, self.send)
        width = self.screen.columns()
        running = {
            str(params["event"].get("id"))
            for method, params in self.pending
            if method == "_agent/event" and params["event"].get("type") == "tool_start"
        }  # the open calls' starts: sent before the load's answer
        for line in history(meta, width, chat.color, chat.tools.feed, running):
            self.screen.commit(line)
        chat.say(f"── attached to {self.record.name}: type to steer it; Ctrl-D detaches ──")
        if meta.get("busy"):
            chat.started()
        self.screen.attach(chat)
        await self.screen.flush()  # the history on screen before what waits is asked
        self.chat = chat
        for method, params in self.pending:
            await chat.handle(method, params)
        self.pending.clear()
        chat.attention.notify = await asyncio.to_thread(_notify, Path(self.cwd))
        assert self.rpc is not None
        await self.rpc.gone
        self.how = "ended"
        self.screen.exit()

    async def _join(self) -> dict[str, Any]:
        self.rpc = await connect(str(self.record.data["socket"]), self.handle)
        capabilities = {"_meta": {EVENTS: True}}
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
    screen = ChatScreen(None)
    link = Link(screen, record)
    kept: set[asyncio.Task[None]] = set()

    def boot() -> None:
        kept.add(asyncio.ensure_future(link.run()))

    async def main() -> None:
        await screen.run(boot)
        if link.rpc is not None:
            link.rpc.writer.close()
        for task in kept:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    asyncio.run(main())
    if link.error is not None:
        raise link.error
    return link.how
