"""The socket's protocol. Client -> server: a 4-byte length carrying the client's three
descriptors (SCM_RIGHTS), then that many bytes of JSON (the request). Server and child ->
client: JSON lines ({"pid"}, then {"exit"} or {"signal"}; or {"retire"}; or a reply)."""

from __future__ import annotations

import json
import os
import socket
import struct

TYPE_CHECKING = False  # typing itself is not imported: the thin client saves its 2-3 ms
if TYPE_CHECKING:
    from typing import Any

MAX_REQUEST = 16 * 1024 * 1024
SO_PEERPIDFD = 77  # Linux's number; Python 3.11's socket module does not name it


def peer_uid(sock: socket.socket) -> int:
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


def peer_pid(sock: socket.socket) -> int:
    """The peer's pid as this process's pid namespace sees it (0: outside its view)."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[0])


def peer_pidfd(sock: socket.socket, pid: int) -> int | None:
    """A pidfd of the very process that connected (SO_PEERPIDFD, Linux 6.5), else of whatever
    process has its pid now (pidfd_open); None where there are no pidfds or it is gone."""
    try:
        return int(sock.getsockopt(socket.SOL_SOCKET, SO_PEERPIDFD))
    except OSError:
        pass
    try:
        return os.pidfd_open(pid)
    except (OSError, AttributeError):
        return None


def send_request(sock: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
    payload = json.dumps(request).encode()
    socket.send_fds(sock, [struct.pack("!I", len(payload))], fds)
    sock.sendall(payload)


def _exactly(sock: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            raise ConnectionError("the peer closed mid-request")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def recv_request(sock: socket.socket) -> tuple[dict[str, Any], list[int]]:
    head, fds, _flags, _addr = socket.recv_fds(sock, 4, 3)
    if len(head) < 4:
        head += _exactly(sock, 4 - len(head))
    (size,) = struct.unpack("!I", head)
    if size > MAX_REQUEST:
        raise ValueError("request too large")
    request = json.loads(_exactly(sock, size))
    if not isinstance(request, dict):
        raise ValueError("request is not an object")
    return request, list(fds)


def send_line(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendall(json.dumps(message).encode() + b"\n")


class Lines:
    """JSON lines read from a socket, one at a time; None at the end."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.buffer = sock, b""

    def next(self) -> dict[str, Any] | None:
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        message = json.loads(line)
        return message if isinstance(message, dict) else None
