"""The warm process's gate and forking rules, held by tests (issue 58 item 6): elsewhere than
Linux no part of it runs (the client asks no socket, the server module started by hand exits
before its lock); it never forks with a thread alive (the server refuses the client, and the
fork itself raises); importing its modules starts no thread and opens no descriptor, since
whatever an import made would be shared by every child forked after it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_cli.cli.warm import child, client, server
from agent_cli.cli.warm.wire import Lines
from tests.e2e.helpers import REPO

ELSEWHERE = ["darwin", "freebsd14", "win32"]
WARM = REPO / "agent_cli" / "cli" / "warm"


@pytest.fixture
def folder() -> Iterator[Path]:
    made = Path(tempfile.mkdtemp(prefix="agent-gate-", dir="/tmp"))  # a short socket path
    made.chmod(0o700)
    yield made
    subprocess.run(["rm", "-rf", str(made)], check=False)


@pytest.mark.parametrize("platform", ELSEWHERE)
def test_elsewhere_the_server_started_by_hand_exits_before_its_lock(
    folder: Path, monkeypatch: pytest.MonkeyPatch, platform: str
):
    locks: list[Path] = []
    monkeypatch.setattr(server, "take_lock", lambda f: locks.append(f))  # None: "one serves"
    monkeypatch.setattr(sys, "platform", platform)
    assert server.main([str(folder), "key", "60"]) == 0
    assert locks == []
    assert list(folder.iterdir()) == []  # no lock, no log


@pytest.mark.parametrize("platform", ELSEWHERE)
def test_elsewhere_no_socket_is_asked(folder: Path, monkeypatch: pytest.MonkeyPatch, platform: str):
    """`agent server status|stop` and the client connect through here; SO_PEERCRED, which
    judges the peer, is Linux's."""
    path = str(folder / "server.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(path)
        listener.listen(1)
        listener.setblocking(False)
        monkeypatch.setattr(sys, "platform", platform)
        assert client.connect(path) is None
        with pytest.raises(BlockingIOError):
            listener.accept()  # no one knocked


@pytest.fixture
def a_thread() -> Iterator[threading.Thread]:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="stray")
    thread.start()
    yield thread
    stop.set()
    thread.join()


def test_a_server_with_a_thread_alive_refuses_its_client_and_forks_nothing(
    folder: Path, a_thread: threading.Thread, monkeypatch: pytest.MonkeyPatch
):
    forks: list[object] = []
    monkeypatch.setattr(child, "fork", lambda *args: forks.append(args))
    lock = os.open(folder / "server.lock", os.O_RDWR | os.O_CREAT, 0o600)
    warm = server.Server(folder, "key", 60.0, lock)
    ours, theirs = socket.socketpair()
    try:
        warm._fork(ours, {"op": "run", "key": "key"}, [])
        answer = Lines(theirs).next()
    finally:
        theirs.close()
        warm.selector.close()
        for fd in (warm.wakeup_r, warm.wakeup_w, lock):
            os.close(fd)
    assert forks == []
    assert answer is not None
    assert "threads" in str(answer["refused"])
    assert warm.children == {}


def test_the_fork_itself_raises_with_a_thread_alive(
    a_thread: threading.Thread, monkeypatch: pytest.MonkeyPatch
):
    def forked() -> int:
        raise AssertionError("os.fork was called with a thread alive")

    monkeypatch.setattr(os, "fork", forked)
    ours, theirs = socket.socketpair()
    with ours, theirs, pytest.raises(RuntimeError, match="stray"):
        child.fork(lambda: None, ours, {}, [])


# in a fresh interpreter: the descriptors and threads before and after importing `modules`
IMPORTING = """import importlib, json, os, sys, threading
def where(fd):
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # the listing's own descriptor, closed by now
        return None
def state():
    fds = {fd: where(fd) for fd in os.listdir("/proc/self/fd")}
    fds = {fd: to for fd, to in fds.items() if to is not None}
    return {"fds": fds, "threads": [t.name for t in threading.enumerate()]}
before = state()
for name in sys.argv[1:]:
    importlib.import_module(name)
print(json.dumps({"before": before, "after": state()}))
"""


def imported(modules: list[str], path: str) -> tuple[dict[str, object], dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-c", IMPORTING, *modules],
        env={**os.environ, "PYTHONPATH": path}, cwd="/",
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    found = json.loads(done.stdout)
    return found["before"], found["after"]


def test_importing_the_warm_modules_starts_no_thread_and_opens_nothing():
    names = sorted(p.stem for p in WARM.glob("*.py") if p.stem != "__init__")
    modules = ["agent_cli.cli.warm", *(f"agent_cli.cli.warm.{n}" for n in names)]
    assert "agent_cli.cli.warm.server" in modules
    before, after = imported(modules, str(REPO))
    assert after == before


def test_the_import_check_sees_a_thread_and_a_descriptor(tmp_path: Path):
    (tmp_path / "greedy.py").write_text(
        "import socket, threading\nS = socket.socket()\n"
        "threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
    )
    before, after = imported(["greedy"], str(tmp_path))
    assert len(after["fds"]) == len(before["fds"]) + 1  # type: ignore[arg-type]
    assert len(after["threads"]) == 2  # type: ignore[arg-type]
