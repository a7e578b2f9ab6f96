"""A detached process forked from the warm process (`agent run --bg`'s session): `python -m
MODULE ARGV` as a spawned process would run it, but sharing the warm process's imported, frozen
pages instead of importing everything again.

Unlike a run's child it is nobody's client's: it takes its launcher's scheduling, then leads a
session of its own (no terminal: a closed one's SIGHUP never reaches it), its descriptors are
the three its launcher sent (stdin /dev/null, stdout and stderr its log) and nothing else of the
server's, and its launcher's end is not its end. The server reaps it, never ends it.

Exactly one process runs the session: the child starts only once its launcher, told its pid,
says "go"; a launcher that times out or dies first closes the socket, the child ends unstarted,
and the launcher starts the process itself (`launch.start`'s fallback)."""

from __future__ import annotations

import contextlib
import os
import socket
import sys
from pathlib import Path
from typing import Any

from agent_cli.cli.warm.child import READY_S, become_client, take_scheduling
from agent_cli.cli.warm.client import HANDSHAKE_S, reach, start_server
from agent_cli.cli.warm.place import choice, note, private_dir
from agent_cli.cli.warm.wire import Lines, send_line, send_request

OP = "detach"
GO = b"g"
PACKAGE = "agent_cli."  # what a detached child may run: the agent's own modules only


def fork_detached(
    module: str, argv: list[str], cwd: str, env: dict[str, str], fds: list[int]
) -> int | None:
    """`python -m module *argv` in `cwd` with `env` and `fds` as its 0, 1, 2, forked from the
    warm process: its pid. None when no warm process serves this launcher, and the caller
    spawns it: the warm process is off (AGENT_NO_SERVER, CI, `server.enabled` false, not
    Linux); none listens (one is started, to warm up once this launcher ends); it refused (the
    launcher runs in another kernel context, a sandbox; it has threads; the module is not the
    agent's); it is another version (it retires, a new one is started); or it did not answer in
    time. Each is a line in the warm process's log."""
    wanted = choice()
    if not wanted.enabled:
        return None
    folder: str | None = None
    try:
        folder = private_dir()
        key, sock = reach(folder, wanted.idle_s)
        if sock is None:
            note(folder, "background session spawned (no warm process yet)")
            return None
        with sock:
            first = _started(sock, _request(module, argv, cwd, env, key), fds)
        if "pid" in first:
            return int(first["pid"])
        why = first.get("refused") or first.get("retire") or "no answer"
        note(folder, f"background session spawned (the warm process said: {why})")
        if "retire" in first:
            start_server(folder, key, wanted.idle_s, after=os.getpid(), held_ok=True)
    except Exception as e:  # anything at all: the launcher spawns it
        note(folder, f"background session spawned ({type(e).__name__}: {e})")
    return None


def _request(
    module: str, argv: list[str], cwd: str, env: dict[str, str], key: str
) -> dict[str, object]:
    umask = os.umask(0o022)
    os.umask(umask)
    return {"op": OP, "key": key, "module": module, "argv": argv, "cwd": cwd, "env": env,
            "umask": umask, "argv0": sys.argv[0]}  # fmt: skip


def _started(sock: socket.socket, request: dict[str, object], fds: list[int]) -> dict[str, Any]:
    """The warm process's answer; its child told to go when it says the child's pid."""
    send_request(sock, request, fds)
    sock.settimeout(READY_S + HANDSHAKE_S)  # the server waits up to READY_S for the child
    first = Lines(sock).next() or {}
    if "pid" in first:
        sock.sendall(GO)
    return first


def run_detached(
    conn: socket.socket, request: dict[str, object], fds: list[int], client: int, ready: int
) -> None:
    """In the forked child (warm/child.py's `fork` runs it): never returns."""
    take_scheduling(client, ready)
    code = 1
    try:
        module = str(request["module"])
        if not module.startswith(PACKAGE):
            raise PermissionError(f"not the agent's module: {module}")
        send_line(conn, {"pid": os.getpid()})
        conn.settimeout(READY_S + HANDSHAKE_S)
        if conn.recv(1) != GO:  # its launcher gave up: it starts the session itself
            os._exit(0)
        conn.close()
        os.setsid()
        become_client(request, fds, group=False)
        close_the_servers()
        code = run_module(module)
    except BaseException:
        code = 1
    os._exit(code)


def close_the_servers() -> None:
    """Every descriptor above stderr: what the server held and did not close itself is not
    the session's to keep (its socket, lock and log were closed before; this is the rule)."""
    for entry in list(Path("/proc/self/fd").iterdir()):
        fd = int(entry.name)
        if fd > 2:
            with contextlib.suppress(OSError):
                os.close(fd)


def run_module(module: str) -> int:
    """As `python -m module` runs it (sys.argv is the client's): its exit code."""
    import runpy

    from agent_cli.cli.entry import exit_code

    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as e:
        return exit_code(e.code)
    return 0
