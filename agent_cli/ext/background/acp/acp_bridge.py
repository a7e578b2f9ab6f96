"""`agent attach NAME --acp`: the session's socket on stdin and stdout, byte for byte, so an
editor that runs agents as commands over stdio (`agent acp`'s way) attaches to a background
session: its ACP is the session's own (acp_session.py), nothing here reads it."""

from __future__ import annotations

import contextlib
import os
import socket
import threading

from agent_cli.core.errors import UsageError
from agent_cli.ext.background import registry

CHUNK = 65536


def _editor_to_session(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while chunk := os.read(0, CHUNK):
            sock.sendall(chunk)
    with contextlib.suppress(OSError):  # the editor closed: the session sees the end
        sock.shutdown(socket.SHUT_WR)


def bridge(record: registry.Record) -> None:
    """Until the session or the editor ends the connection."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        try:
            sock.connect(str(record.data["socket"]))
        except OSError as e:
            raise UsageError(f"{record.name} does not answer on its socket ({e.strerror})") from e
        threading.Thread(target=_editor_to_session, args=(sock,), daemon=True).start()
        with contextlib.suppress(OSError):
            while chunk := sock.recv(CHUNK):
                os.write(1, chunk)
