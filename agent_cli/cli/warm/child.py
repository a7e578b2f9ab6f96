"""A child of the warm process: it becomes its client (scheduling, descriptors, directory,
environment, umask, argv, signal dispositions) and runs exactly the in-process code path, then
tells the client its exit code and ends without teardown. It never returns into the server's
code."""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from agent_cli.cli.warm.wire import peer_pid, send_line
from agent_cli.core.files import durable

READY_S = 5.0
READY_MAX = 512  # one write under PIPE_BUF: read whole
RESET = (signal.SIGTERM, signal.SIGHUP, signal.SIGWINCH, signal.SIGTSTP, signal.SIGCHLD)


def _stdio(fd: int, write: bool) -> io.TextIOWrapper:
    """sys.stdin/stdout/stderr made anew on the client's descriptors (the server's were
    /dev/null: their buffering and encoding must not carry over)."""
    tty = os.isatty(fd)
    if write:
        raw: Any = io.FileIO(fd, "w", closefd=False)
        buffer: Any = io.BufferedWriter(raw) if not tty or fd == 1 else raw
        errors = "backslashreplace" if fd == 2 else "strict"
        return io.TextIOWrapper(
            buffer, encoding="utf-8", errors=errors, line_buffering=tty or fd == 2,
            write_through=fd == 2,
        )  # fmt: skip
    return io.TextIOWrapper(io.BufferedReader(io.FileIO(fd, "r", closefd=False)), encoding="utf-8")


def become_client(request: dict[str, Any], fds: list[int], group: bool = True) -> None:
    if group:
        os.setpgid(0, 0)  # one group with its tools: the server can end them together
    signal.set_wakeup_fd(-1)
    for signum in RESET:
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for target, fd in enumerate(fds):
        if fd != target:
            os.dup2(fd, target)
            os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    os.umask(int(request["umask"]))
    sys.argv = [str(request.get("argv0") or "agent"), *request["argv"]]
    sys.stdin, sys.stdout, sys.stderr = _stdio(0, False), _stdio(1, True), _stdio(2, True)
    import tempfile

    tempfile.tempdir = None  # chosen again from the client's TMPDIR
    durable.STARTED = time.time()


def die_with_client(conn: socket.socket) -> None:
    """The client sends nothing after its request: anything that makes its socket readable
    (its hang-up, however it died) ends this process there and then, by the kernel's hand
    (SIGIO's default action), as the client's death would end an in-process run. Nothing
    starts after it: no model request, no tool, no hook; the job watcher ends the tools'
    groups as it does for an agent killed with SIGKILL."""
    signal.signal(signal.SIGIO, signal.SIG_DFL)
    fd = conn.fileno()
    fcntl.fcntl(fd, fcntl.F_SETOWN, os.getpid())
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_ASYNC)
    if select.select([fd], [], [], 0)[0]:  # gone before the signal was armed
        os.kill(os.getpid(), signal.SIGKILL)


Runner = Callable[[socket.socket, dict[str, Any], list[int], int, int], None]


def fork(
    prepare: Callable[[], None],
    conn: socket.socket,
    request: dict[str, Any],
    fds: list[int],
    run: Runner | None = None,
) -> tuple[int, str | None]:
    """In the server: a child for `request`'s client (`prepare` lets go of the server's own in
    it; it never returns there). Its pid, and why it could not take its client's scheduling
    (None: it did, and runs; else it has ended). RuntimeError, and no child, when the server
    has any thread but its main one: a lock another thread held would stay held in the child.
    `run` is what the child does (default: its client's run, `run_child`)."""
    if threading.active_count() != 1:
        alive = ", ".join(t.name for t in threading.enumerate())
        raise RuntimeError(f"the warm process cannot fork with threads alive ({alive})")
    client = peer_pid(conn)
    ready_r, ready_w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(ready_r)
        os.close(ready_w)
        raise
    if pid == 0:
        os.close(ready_r)
        prepare()
        (run or run_child)(conn, request, fds, client, ready_w)
    os.close(ready_w)
    return pid, wait_ready(pid, ready_r)


def take_scheduling(client: int, ready: int) -> None:
    """First thing in the child: the client's scheduling (sched.py), then "ok" or why not to
    the server on `ready`; a child that could not take it ends here and its client runs
    in-process."""
    try:
        from agent_cli.cli.warm.sched import take

        why = take(client)
    except Exception as e:
        why = f"the client's scheduling cannot be taken ({type(e).__name__}: {e})"
    os.write(ready, (why or "ok").encode()[:READY_MAX])
    os.close(ready)
    if why is not None:
        os._exit(0)


def wait_ready(pid: int, ready: int) -> str | None:
    """In the server: None once child `pid` took its client's scheduling; else why not (the
    child is then gone)."""
    try:
        said = b""
        if select.select([ready], [], [], READY_S)[0]:
            said = os.read(ready, READY_MAX)
    finally:
        os.close(ready)
    if said == b"ok":
        return None
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return said.decode("utf-8", "replace") or "the child ended before it started the run"


def run_child(
    conn: socket.socket, request: dict[str, Any], fds: list[int], client: int, ready: int
) -> None:
    """In the forked child: never returns."""
    take_scheduling(client, ready)
    code = 1
    try:
        send_line(conn, {"pid": os.getpid()})
        die_with_client(conn)
        become_client(request, fds)
        from agent_cli.cli.entry import adopt_descendants, run_in_process, settle

        adopt_descendants()
        code = run_in_process(list(request["argv"]))
        settle()
    except BaseException:
        code = 1
    signal.signal(signal.SIGIO, signal.SIG_IGN)  # told its code, the client goes: not a death
    with contextlib.suppress(OSError):
        send_line(conn, {"exit": code})
    os._exit(code)
