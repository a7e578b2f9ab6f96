"""The warm process: `python -m agent_cli.cli.warm.server DIR KEY IDLE_S [AFTER_PID]`, started
in the background by a client (with AFTER_PID, the in-process client it must not compete with:
it first waits for that process to end, however it ends). It takes the lock (a second one
starting exits at once), warms up, listens on DIR/server.sock (0600) and forks one child per
run, and one per background session (warm/detached.py), from its single thread. It reports each
child's end to its client, ends a child whose client vanished (SIGTERM, then SIGKILL), retires
when a client's version key differs or on `agent server stop`, and exits after IDLE_S without
runs or background sessions."""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import selectors
import signal
import socket
import sys
import threading
import time
from pathlib import Path

from agent_cli.cli.warm.kinship import Kinship
from agent_cli.cli.warm.place import LOG, SOCKET, supported
from agent_cli.cli.warm.upkeep import rss_kib, take_lock, wait_for_exit
from agent_cli.cli.warm.wire import peer_uid, recv_request, send_line

log = logging.getLogger("agent.warm")
KILL_AFTER_S = 5.0
OPS = ("run", "detach", "status", "stop")
GRACE_S = 0.3


class Server:
    def __init__(self, folder: Path, key: str, idle_s: float, lock: int) -> None:
        self.folder, self.key, self.idle_s, self.lock = folder, key, idle_s, lock
        self.started = time.time()
        self.children: dict[int, socket.socket] = {}  # child pid -> its client's connection
        self.detached: set[int] = set()  # background sessions: reaped here, never ended
        self.kill_at: dict[int, float] = {}
        self.terminated: set[int] = set()
        self.served = 0
        self.retiring = ""
        self.kin = Kinship()  # a client in another kernel context runs in-process
        self.last_refused = ""
        self.last_active = time.monotonic()
        self.selector = selectors.DefaultSelector()
        self.listener: socket.socket | None = None
        self.wakeup_r, self.wakeup_w = os.pipe()

    # -- start -------------------------------------------------------------------------------

    def listen(self) -> None:
        path = self.folder / SOCKET
        path.unlink(missing_ok=True)  # a stale socket: the lock says no one serves it
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            listener.bind(str(path))  # created 0600
        finally:
            os.umask(old)
        listener.listen(64)
        self.listener = listener
        self.selector.register(listener, selectors.EVENT_READ, "accept")
        os.set_blocking(self.wakeup_r, False)
        os.set_blocking(self.wakeup_w, False)
        signal.set_wakeup_fd(self.wakeup_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGTERM, lambda *_: self.retire("SIGTERM"))
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        self.selector.register(self.wakeup_r, selectors.EVENT_READ, "wakeup")

    # -- the loop ----------------------------------------------------------------------------

    def serve(self) -> None:
        while True:
            for key, _ in self.selector.select(timeout=self._timeout()):
                if key.data == "accept":
                    self._accept()
                elif key.data == "wakeup":
                    self._drain()
                else:
                    self._client_gone(key.data)
            self._reap()
            self._kill_overdue()
            if self.done():
                self.retire("idle")
                log.info("exiting: %s", self.retiring)
                return

    def done(self) -> bool:
        """Whether to exit now: no run is left, and it retires or has been idle long enough.
        A background session keeps it from idling (the next one is forked too), never from
        retiring (a new version's process waits for this one's lock)."""
        if self.children or (self.detached and not self.retiring):
            self.last_active = time.monotonic()
            return False
        return bool(self.retiring) or time.monotonic() - self.last_active >= self.idle_s

    def _timeout(self) -> float:
        deadlines = [t - time.monotonic() for t in self.kill_at.values()]
        idle_left = self.idle_s - (time.monotonic() - self.last_active)
        return max(0.05, min([idle_left, 1.0, *deadlines]))

    def _drain(self) -> None:
        try:
            while os.read(self.wakeup_r, 512):
                pass
        except BlockingIOError:
            pass

    def _accept(self) -> None:
        assert self.listener is not None
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        try:
            self._handle(conn)
        except Exception as e:  # a broken client: it runs in-process
            log.warning("request refused: %s: %s", type(e).__name__, e)
            conn.close()

    def _handle(self, conn: socket.socket) -> None:
        """Every request, whatever it asks, is first judged by its peer: one in another kernel
        context (a sandbox) gets neither a child nor an answer that changes this process."""
        conn.settimeout(2.0)
        if peer_uid(conn) != os.getuid():
            raise PermissionError("a client of another user")
        why = self.kin.of_peer(conn)
        request, fds = recv_request(conn)  # read even when refused: its descriptors are closed
        try:
            self._answer(conn, request, fds, why)
        finally:
            for fd in fds:  # a child has its own
                os.close(fd)

    def _answer(
        self, conn: socket.socket, request: dict[str, object], fds: list[int], why: str | None
    ) -> None:
        op = request.get("op")
        why = why or (None if op in OPS else f"an unknown request ({str(op)[:40]!r})")
        if why is not None:
            self._refuse(conn, why)
        elif op in ("status", "stop"):
            _say(conn, self.status())
            if op == "stop":
                self.retire("agent server stop")
        elif self.retiring or request.get("key") != self.key:
            _say(conn, {"retire": self.retiring or "another version"})
            self.retire(self.retiring or "a client of another version")
        elif op == "detach":
            self._detach(conn, request, fds)
        else:
            self._fork(conn, request, fds)

    def _refuse(self, conn: socket.socket, why: str) -> None:
        """The client runs in-process: a child of ours would escape what confines it."""
        self.last_refused = f"{time.strftime('%Y-%m-%d %H:%M:%S')}: {why}"
        log.info("client refused (it runs in-process): %s", why)
        _say(conn, {"refused": why})

    def _fork(self, conn: socket.socket, request: dict[str, object], fds: list[int]) -> None:
        if threading.active_count() != 1:  # forking with threads: their locks come along
            self._refuse(conn, "the warm process has threads; it cannot fork safely")
            return
        from agent_cli.cli.warm.child import fork

        pid, why = fork(self._in_child, conn, request, fds)
        if why is not None:  # it could not take its client's scheduling, and ended
            self._refuse(conn, why)
            return
        conn.settimeout(None)
        self.children[pid] = conn
        self.served += 1
        self.selector.register(conn, selectors.EVENT_READ, pid)
        log.info("run %d: child %d", self.served, pid)

    def _detach(self, conn: socket.socket, request: dict[str, object], fds: list[int]) -> None:
        """A background session (warm/detached.py): nobody's client, so not in `children`."""
        from agent_cli.cli.warm.child import fork
        from agent_cli.cli.warm.detached import PACKAGE, run_detached

        if not str(request.get("module")).startswith(PACKAGE):
            self._refuse(conn, "a detached process runs the agent's own modules only")
            return
        if threading.active_count() != 1:
            self._refuse(conn, "the warm process has threads; it cannot fork safely")
            return

        pid, why = fork(self._in_child, conn, request, fds, run_detached)
        if why is not None:
            self._refuse(conn, why)
            return
        conn.close()  # the child tells its launcher its pid, and waits for its "go"
        self.detached.add(pid)
        log.info("background session: child %d", pid)

    def _in_child(self) -> None:
        self.selector.close()
        if self.listener is not None:
            self.listener.close()
        for other in self.children.values():
            other.close()
        for fd in (self.wakeup_r, self.wakeup_w, self.lock):
            os.close(fd)
        for handler in list(log.handlers):
            log.removeHandler(handler)  # the child logs where its run logs
            handler.close()  # its file too (frozen, the handler would keep it open)

    def _client_gone(self, pid: int) -> None:
        conn = self.children.get(pid)
        if conn is None:
            return
        try:
            data = conn.recv(4096)
        except OSError:
            data = b""
        if data:
            return  # a client sends nothing after its request; ignored
        self.selector.unregister(conn)
        # a client also goes once told the exit code, as its child ends: a moment's grace
        self.kill_at[pid] = time.monotonic() + GRACE_S

    def _signal(self, pid: int, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signum)

    def _kill_overdue(self) -> None:
        """A child whose client vanished (killed, even with SIGKILL) is ended as a closed
        terminal ends a run: SIGTERM to its group, then SIGKILL if it lingers."""
        now = time.monotonic()
        for pid, when in list(self.kill_at.items()):
            if now < when:
                continue
            if pid in self.terminated:
                self._signal(pid, signal.SIGKILL)
                del self.kill_at[pid]
            else:
                log.info("child %d: its client is gone; ending it", pid)
                self.terminated.add(pid)
                self._signal(pid, signal.SIGTERM)
                self.kill_at[pid] = now + KILL_AFTER_S

    def _reap(self) -> None:
        while self.children or self.detached:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self.detached.discard(pid)
            conn = self.children.pop(pid, None)
            self.kill_at.pop(pid, None)
            self.terminated.discard(pid)
            if conn is None:
                continue
            code = os.waitstatus_to_exitcode(status)
            with contextlib.suppress(OSError):
                send_line(conn, {"exit": code} if code >= 0 else {"signal": -code})
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(conn)
            conn.close()

    # -- end ---------------------------------------------------------------------------------

    def retire(self, why: str) -> None:
        """No new runs; the running ones finish; then the process exits."""
        if self.retiring:
            return
        self.retiring = why
        log.info("retiring: %s", why)
        if self.listener is not None:
            self.selector.unregister(self.listener)
            self.listener.close()
            self.listener = None
            (self.folder / SOCKET).unlink(missing_ok=True)

    def status(self) -> dict[str, object]:
        return {
            "pid": os.getpid(),
            "key": self.key,
            "started": self.started,
            "served": self.served,
            "running": len(self.children),
            "sessions": len(self.detached),  # background sessions forked here, running
            "idle_s": self.idle_s,
            "rss_kib": rss_kib(),
            "last_refused": self.last_refused,
        }


def _say(conn: socket.socket, message: dict[str, object]) -> None:
    send_line(conn, message)  # a client that gets no child: one line
    conn.close()


def main(argv: list[str]) -> int:
    if not supported():  # however it was started: no pidfds, no SO_PEERCRED there
        return 0
    folder, key, idle_s = Path(argv[0]), argv[1], float(argv[2])
    if len(argv) > 3:
        wait_for_exit(int(argv[3]))
    lock = take_lock(folder)
    if lock is None:
        return 0  # another one is starting or serving
    os.set_inheritable(lock, False)
    handler = logging.FileHandler(folder / LOG, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s server %(process)d: %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
    started = time.monotonic()
    gc.disable()  # class building makes no garbage worth collecting; freezing keeps pages shared
    try:
        from agent_cli.cli.warm.warmup import warm_up

        events = warm_up()
    except Exception as e:
        log.warning("warm-up failed: %s: %s", type(e).__name__, e)
        return 1
    finally:
        gc.enable()
    from agent_cli.cli.run import YOUNG_COLLECTION

    gc.freeze()  # the children never touch these objects' GC headers: their pages stay shared
    gc.set_threshold(YOUNG_COLLECTION, 10, 10)  # as an in-process run collects once imported
    server = Server(folder, key, idle_s, lock)
    server.listen()
    log.info("serving after %.2f s warm-up (%d events)", time.monotonic() - started, events)
    server.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
