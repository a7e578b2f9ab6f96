"""The proxy a sandboxed command reaches the network through: HTTP (absolute-form requests) and
HTTPS `CONNECT`. The sandbox may not make a unix socket, so the proxy has no address it could
reach: the command inherits one end of a socket pair (`channel`), and the forwarder inside
(sandbox/forwarder.py) passes each connection it accepts over it as a descriptor, which the
proxy then serves directly.

One proxy serves one command; what it refused is kept so the command's result can say which
setting would allow it. A request to an unlisted host is put to `approve` (chat asks the user);
without an answer it is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from agent_cli.tools.shell.net_rules import HostRules, Verdict, normal_host, shown

log = logging.getLogger(__name__)
Decision = Literal["once", "project", "deny"]


@dataclass(frozen=True)
class Refusal:
    """A no that is not the user's (auto mode's rules or reviewer), with its reason."""

    reason: str


Approve = Callable[[str, int], Awaitable["Decision | Refusal"]]
HEAD_LIMIT = 65_536
HEAD_TIMEOUT_S = 30.0
CONNECT_TIMEOUT_S = 30.0
CHUNK = 65_536
DROPPED_HEADERS = {"proxy-connection", "proxy-authorization", "connection", "keep-alive"}
FDS_PER_MESSAGE = 16
SERVED_FAMILIES = (socket.AF_INET, socket.AF_INET6)


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
        self._ours: socket.socket | None = None
        self._theirs: socket.socket | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._asking = asyncio.Lock()
        self._denied: set[tuple[str, int]] = set()

    async def start(self) -> int:
        """The descriptor the command inherits (its end of the channel)."""
        self._ours, self._theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._ours.setblocking(False)
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self._ours.fileno(), self._receive)
        return self._theirs.fileno()

    @property
    def channel(self) -> int:
        """The command's end of the channel (pass_fds), -1 once closed."""
        return self._theirs.fileno() if self._theirs is not None else -1

    def stop_accepting(self) -> None:
        """No new connection is taken; those being served go on until aclose()."""
        if self._ours is not None:
            if self._loop is not None and not self._loop.is_closed():
                self._loop.remove_reader(self._ours.fileno())
            self._ours.close()
            self._ours = None
        if self._theirs is not None:
            self._theirs.close()
            self._theirs = None

    async def aclose(self) -> None:
        self.stop_accepting()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def _receive(self) -> None:
        """The connections the forwarder handed over; anything but a TCP socket is closed."""
        assert self._ours is not None
        try:
            data, fds, _, _ = socket.recv_fds(self._ours, 16, FDS_PER_MESSAGE)
        except BlockingIOError:
            return
        except OSError:
            data, fds = b"", []
        if not data and not fds:  # the forwarder is gone
            self.stop_accepting()
            return
        for fd in fds:
            try:
                conn = socket.socket(fileno=fd)
            except OSError:
                with contextlib.suppress(OSError):
                    socket.close(fd)
                continue
            if conn.family in SERVED_FAMILIES and conn.type == socket.SOCK_STREAM:
                task = asyncio.ensure_future(self._connection(conn))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            else:
                conn.close()

    async def _connection(self, conn: socket.socket) -> None:
        conn.setblocking(False)
        try:
            reader, writer = await asyncio.open_connection(sock=conn, limit=HEAD_LIMIT)
        except OSError:
            conn.close()
            return
        try:
            await self._serve(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            pass
        except Exception:  # a malformed request must not reach the event loop's handler
            log.debug("sandbox proxy: request failed", exc_info=True)
        finally:
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
            if decision == "deny" or isinstance(decision, Refusal):
                self._denied.add((host, port))
                if isinstance(decision, Refusal):
                    return Verdict("refuse", reason=f"{shown(host, port)}: {decision.reason}")
                return Verdict("refuse", reason=f"{shown(host, port)} was refused by the user")
            self.rules.allow(host, port)
            return await self.rules.check(host, port)

    def _refused(self, reason: str) -> None:
        if reason not in self.refusals:
            self.refusals.append(reason)
