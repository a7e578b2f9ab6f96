"""The client's side of the socket: its protocol, a stranger's socket refused, and every
failure before a child started running the command in-process, noted in the log."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_cli.cli.warm import client, place
from agent_cli.cli.warm.wire import Lines, peer_uid, recv_request, send_line, send_request


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    """The warm processes a client would start (none really is: one started here would warm up
    once this test process ends)."""
    calls: list[dict[str, object]] = []

    def record(folder: str, key: str, idle_s: float, **kw: object) -> None:
        calls.append({"folder": folder, **kw})

    monkeypatch.setattr(client, "start_server", record)
    return calls


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="agent-ut-", dir="/tmp"))  # a short socket path
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    monkeypatch.setenv("AGENT_SERVER", "1")
    monkeypatch.delenv("AGENT_NO_SERVER", raising=False)
    yield folder / "agent"
    for path in sorted(folder.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    folder.rmdir()


def test_a_request_and_its_descriptors_cross_the_socket():
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    read_end, write_end = os.pipe()
    big = {"op": "run", "env": {"BIG": "x" * 100_000}, "argv": ["run", "-p", "hi"]}
    send_request(left, big, [read_end, write_end, write_end])
    request, fds = recv_request(right)
    assert request == big
    assert len(fds) == 3
    os.write(fds[1], b"through the passed descriptor")
    assert os.read(read_end, 100) == b"through the passed descriptor"
    send_line(right, {"pid": 7})
    send_line(right, {"exit": 3})
    right.close()
    lines = Lines(left)  # the end of the lines: the peer closed
    assert [lines.next(), lines.next(), lines.next()] == [{"pid": 7}, {"exit": 3}, None]
    for fd in (read_end, write_end, *fds):
        os.close(fd)
    assert peer_uid(left) == os.getuid()
    left.close()


def listening(path: Path) -> socket.socket:
    path.parent.mkdir(mode=0o700, exist_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    return server


def test_a_socket_served_by_another_uid_is_refused(runtime: Path):
    """We cannot be another user here: the expected uid is injected instead."""
    with listening(runtime / place.SOCKET):
        sock = client.connect(str(runtime / place.SOCKET))  # ours: accepted
        assert sock is not None
        sock.close()
        with pytest.raises(PermissionError, match=f"uid {os.getuid()}"):
            client.connect(str(runtime / place.SOCKET), uid=os.getuid() + 1)


def test_a_refused_socket_means_in_process_logged_not_shown(
    runtime: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    started: list[dict[str, object]],
):
    real = client.connect
    monkeypatch.setattr(client, "connect", lambda path: real(path, uid=os.getuid() + 1))
    with listening(runtime / place.SOCKET):
        assert client.through_server(["run", "-p", "hi"]) is None
    assert "PermissionError" in (runtime / place.LOG).read_text()
    assert capsys.readouterr() == ("", "")
    assert started == []  # someone else's socket: no server of ours started there


def test_no_socket_means_in_process_and_a_server_started_to_warm_up_after_it(
    runtime: Path, started: list[dict[str, object]]
):
    assert client.through_server(["run", "-p", "hi"]) is None
    # started now (a run killed with SIGKILL leaves one too), warming up once this one ended
    assert started == [{"folder": str(runtime), "after": os.getpid()}]


def test_a_server_that_never_answers_means_in_process(
    runtime: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(client, "HANDSHAKE_S", 0.2)
    with listening(runtime / place.SOCKET):  # listens, never accepts
        assert client.through_server(["run", "-p", "hi"]) is None
    assert "did not answer in time" in (runtime / place.LOG).read_text()


def test_turned_off_it_touches_nothing(runtime: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AGENT_NO_SERVER", "1")
    assert client.through_server(["run", "-p", "hi"]) is None
    assert not runtime.exists()
