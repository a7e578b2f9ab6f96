"""The proxy a sandboxed command reaches the network through: HTTP (absolute-form requests) and
HTTPS `CONNECT`, on a unix socket the sandbox sees (sandbox/forwarder.py is its other end).

One proxy serves one command; what it refused is kept so the command's result can say which
setting would allow it. A request to an unlisted host is put to `approve` (chat asks the user);
without an answer it is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from agent_cli.tools.shell.net_rules import HostRules, Verdict, normal_host, shown

log = logging.getLogger(__name__)
Decision = Literal["once", "project", "deny"]
Approve = Callable[[str, int], Awaitable[Decision]]
HEAD_LIMIT = 65_536
HEAD_TIMEOUT_S = 30.0
CONNECT_TIMEOUT_S = 30.0
CHUNK = 65_536
DROPPED_HEADERS = {"proxy-connection", "proxy-authorization", "connection", "keep-alive"}


class BadRequest(Exception):
    pass


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (OSError, RuntimeError):
        pass


def _target(method: str, target: str) -> tuple[str, int, str]:
    """(host, port, origin-form path) of a request line; BadRequest when it is none."""
    if method == "CONNECT":
        parts = urlsplit("//" + target)
        path = ""
    else:
        parts = urlsplit(target)
        if parts.scheme.lower() != "http":
            raise BadRequest("only http:// requests and CONNECT go through this proxy")
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        port = parts.port or (80 if method != "CONNECT" else None)
        host = normal_host(parts.hostname or "")
    except (ValueError, UnicodeError) as e:
        raise BadRequest(f"not a host: {target!r}") from e
    if port is None:
        raise BadRequest("CONNECT needs host:port")
    return host, port, path


def _name(header: bytes) -> str:
    return header.split(b":", 1)[0].strip().lower().decode("latin-1")


def _forwarded_head(method: str, path: str, version: str, headers: list[bytes]) -> bytes:
    kept = [h for h in headers if _name(h) not in DROPPED_HEADERS]
    lines = [f"{method} {path} {version}".encode(), *kept, b"Connection: close"]
    return b"\r\n".join(lines) + b"\r\n\r\n"


async def _reply(writer: asyncio.StreamWriter, status: str, body: str) -> None:
    data = body.encode() + b"\n"
    head = f"HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {len(data)}\r\n"
    writer.write(head.encode() + b"X-Agent-Sandbox: refused\r\nConnection: close\r\n\r\n" + data)
    with contextlib.suppress(OSError):
        await writer.drain()


class NetworkProxy:
    def __init__(self, rules: HostRules, approve: Approve | None = None) -> None:
        self.rules = rules
        self.approve = approve
        self.refusals: list[str] = []
        self.socket = Path()
        self._dir: str | None = None
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._asking = asyncio.Lock()
        self._denied: set[tuple[str, int]] = set()

    async def start(self) -> Path:
        self._dir = tempfile.mkdtemp(prefix="agent-net-")
        self.socket = Path(self._dir) / "proxy.sock"
        self._server = await asyncio.start_unix_server(self._accept, self.socket, limit=HEAD_LIMIT)
        return self.socket

    def remove_socket(self) -> None:
        """No new connection can reach it (its folder is gone)."""
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    async def aclose(self) -> None:
        self.remove_socket()
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self._serve(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            pass
        except Exception:  # a malformed request must not reach the event loop's handler
            log.debug("sandbox proxy: request failed", exc_info=True)
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S)
        line, *headers = head[:-4].split(b"\r\n")
        try:
            method, target, version = line.decode("latin-1").split(" ")
            host, port, path = _target(method.upper(), target)
        except (ValueError, BadRequest) as e:
            await _reply(writer, "400 Bad Request", f"agent sandbox proxy: {e}")
            return
        verdict = await self._decide(host, port)
        if verdict.kind != "allow":
            self._refused(verdict.reason)
            await _reply(writer, "403 Forbidden", f"agent sandbox proxy: {verdict.reason}")
            return
        try:
            up_reader, up_writer = await asyncio.wait_for(
                asyncio.open_connection(verdict.address, port), CONNECT_TIMEOUT_S
            )
        except (OSError, TimeoutError) as e:
            await _reply(
                writer, "502 Bad Gateway", f"agent sandbox proxy: {shown(host, port)}: {e}"
            )
            return
        if method.upper() == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        else:
            up_writer.write(_forwarded_head(method, path, version, headers))
        try:
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        finally:
            up_writer.close()

    async def _decide(self, host: str, port: int) -> Verdict:
        verdict = await self.rules.check(host, port)
        if verdict.kind != "ask" or self.approve is None:
            return verdict
        async with self._asking:  # one question at a time; a second request waits for its answer
            again = await self.rules.check(host, port)
            if again.kind != "ask" or (host, port) in self._denied:
                return again
            decision = await self.approve(host, port)
            if decision == "deny":
                self._denied.add((host, port))
                return Verdict("refuse", reason=f"{shown(host, port)} was refused by the user")
            self.rules.allow(host, port)
            return await self.rules.check(host, port)

    def _refused(self, reason: str) -> None:
        if reason not in self.refusals:
            self.refusals.append(reason)
