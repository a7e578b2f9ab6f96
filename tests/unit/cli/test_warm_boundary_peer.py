"""The warm process judges a request by the very process that connected, not by whatever process
has its pid by the time /proc is read: a client that ended, its pid taken by another process
(here this test's own, which the check would pass), is refused (issue 50 item 1)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from subprocess import Popen

import pytest

from agent_cli.cli.warm import kinship
from agent_cli.cli.warm.wire import SO_PEERPIDFD

CONNECT = (
    "import socket, sys\ns = socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\n"
    "sys.stdin.read()\n"  # connected until its stdin closes
)


@pytest.fixture
def listener() -> Iterator[tuple[socket.socket, str]]:
    folder = tempfile.mkdtemp(prefix="agent-ut-", dir="/tmp")  # a short socket path
    path = os.path.join(folder, "s.sock")  # noqa: PTH118
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    sock.listen()
    yield sock, path
    sock.close()
    shutil.rmtree(folder)


@contextlib.contextmanager
def _client(listener: tuple[socket.socket, str]) -> Iterator[tuple[socket.socket, Popen[bytes]]]:
    """A connection from another process, alive until the block ends."""
    argv = [sys.executable, "-c", CONNECT, listener[1]]
    with subprocess.Popen(argv, stdin=subprocess.PIPE) as proc:
        conn, _ = listener[0].accept()
        with conn:
            yield conn, proc
        assert proc.stdin is not None
        proc.stdin.close()


def test_a_live_client_in_the_same_context_is_served(listener: tuple[socket.socket, str]):
    with _client(listener) as (conn, _proc):
        assert kinship.Kinship().of_peer(conn) is None


def test_a_client_whose_pid_now_names_another_process_is_refused(
    listener: tuple[socket.socket, str], monkeypatch: pytest.MonkeyPatch
):
    with _client(listener) as (conn, proc):
        try:
            os.close(conn.getsockopt(socket.SOL_SOCKET, SO_PEERPIDFD))
        except OSError:
            pytest.skip("no SO_PEERPIDFD before Linux 6.5")
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()  # ended and reaped: its pid is free for another process
        kin = kinship.Kinship()
        monkeypatch.setattr(kinship, "peer_pid", lambda _sock: os.getpid())  # the pid reused
        assert kin.differs(os.getpid()) is None  # its new owner would pass the check
        assert kin.of_peer(conn) == "the client ended before it was checked"
