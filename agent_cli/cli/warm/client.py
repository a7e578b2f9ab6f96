"""The thin client: `agent run` hands itself to the warm process when one serves, and passes
its signals on to the child that runs it. Any failure before the child started (no socket,
refused, a stranger's socket, timeout, version mismatch) means running in-process: logged in
the warm process's log, never shown. A missing (or retiring) warm process is started at once,
to warm up only once this client has ended (so it does not compete with the run, and a run
killed with SIGKILL still leaves one). Standard library only, paths as strings (no pathlib)."""
# ruff: noqa: PTH118

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import socket
import sys
from os.path import join
from types import FrameType

from agent_cli.cli.warm.place import LOCK, SOCKET, choice, note, private_dir, supported, version_key
from agent_cli.cli.warm.wire import Lines, peer_uid, send_request

HANDSHAKE_S = 3.0
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGWINCH, signal.SIGQUIT)


def through_server(argv: list[str]) -> int | None:
    """The run's exit code, run by a child of the warm process; None: run it in-process (a
    warm process is then started, to warm up once this process has ended)."""
    wanted = choice()
    if not wanted.enabled:
        return None
    folder: str | None = None
    try:
        folder = private_dir()
        key, sock = reach(folder, wanted.idle_s)
        if sock is None:
            return None
        return _drive(sock, argv, key, folder, wanted.idle_s)
    except Exception as e:  # anything at all: the run goes on in-process
        note(folder, f"in-process ({type(e).__name__}: {e})")
        return None


def reach(folder: str, idle_s: float) -> tuple[str, socket.socket | None]:
    """This version's key and a connection to the warm process; None when none listens (one
    is started then, to warm up once this process has ended)."""
    key = version_key()
    sock = connect(join(folder, SOCKET))
    if sock is None:
        start_server(folder, key, idle_s, after=os.getpid())
    return key, sock


def connect(path: str, uid: int | None = None) -> socket.socket | None:
    """A connection to the warm process, or None when none listens there. A socket served by
    another user than `uid` (default: ours) is refused with PermissionError. Elsewhere than
    Linux none is ever started (nor could its peer be judged): None."""
    if not supported():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(HANDSHAKE_S)
    try:
        sock.connect(path)
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        return None
    except BaseException:
        sock.close()
        raise
    owner = peer_uid(sock)
    if owner != (os.getuid() if uid is None else uid):
        sock.close()
        raise PermissionError(f"{path} is served by uid {owner}")
    return sock


def _request(argv: list[str], key: str) -> dict[str, object]:
    umask = os.umask(0o022)
    os.umask(umask)
    try:
        size: list[int] | None = list(os.get_terminal_size(sys.stdout.fileno()))
    except (OSError, ValueError):
        size = None
    return {
        "op": "run",
        "key": key,
        "argv": argv,
        "argv0": sys.argv[0],
        "cwd": os.getcwd(),  # noqa: PTH109
        "env": dict(os.environ),
        "umask": umask,
        "winsize": size,
    }


def _drive(
    sock: socket.socket, argv: list[str], key: str, folder: str, idle_s: float
) -> int | None:
    forward = Forwarder()
    forward.install()
    try:
        send_request(sock, _request(argv, key), [0, 1, 2])
        lines = Lines(sock)
        first = lines.next()
        if first is not None and "refused" in first:  # another kernel context: logged there
            forward.uninstall()
            return None
        if first is None or "pid" not in first:
            reason = (first or {}).get("retire", "no answer")
            note(folder, f"in-process (the warm process said: {reason})")
            if "retire" in (first or {}):  # its lock is let go of once its runs end
                start_server(folder, key, idle_s, after=os.getpid(), held_ok=True)
            forward.uninstall()
            return None
        sock.settimeout(None)  # the run takes as long as it takes
        forward.attach(int(first["pid"]))
        while (message := lines.next()) is not None:
            if "exit" in message:
                return int(message["exit"])
            if "signal" in message:
                return forward.die_of(int(message["signal"]))
        sys.stderr.write("agent: the warm process ended without the run's exit status\n")
        return 1
    except TimeoutError:
        note(folder, "in-process (the warm process did not answer in time)")
        forward.uninstall()
        return None
    finally:
        sock.close()


class Forwarder:
    """The client's signals reach the child as if it were the client: Ctrl-C, SIGTERM, SIGHUP,
    SIGWINCH, SIGQUIT are passed on; Ctrl-Z stops the child and then the client, and the
    child continues when the client does. Signals before the child is known wait for it."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.pending: list[int] = []
        self.saved: dict[int, object] = {}

    def install(self) -> None:
        for signum in (*FORWARDED, signal.SIGTSTP, signal.SIGCONT):
            self.saved[signum] = signal.signal(signum, self._on_signal)

    def uninstall(self) -> None:
        for signum, handler in self.saved.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        self.saved = {}

    def attach(self, pid: int) -> None:
        self.pid = pid
        for signum in self.pending:
            self._send(signum)
        self.pending = []

    def _send(self, signum: int) -> None:
        assert self.pid is not None
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signum)

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        if self.pid is None:
            self.pending.append(signum)
        elif signum == signal.SIGTSTP:
            self._send(signal.SIGSTOP)
            signal.signal(signal.SIGTSTP, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTSTP)  # stopped here until SIGCONT
            signal.signal(signal.SIGTSTP, self._on_signal)
            self._send(signal.SIGCONT)
        else:
            self._send(signum)

    def die_of(self, signum: int) -> int:
        """The child was killed by `signum`: so is the client, as a native tool would be."""
        self.uninstall()
        sys.stdout.flush()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return 128 + signum


def start_server(
    folder: str, key: str, idle_s: float, after: int | None = None, held_ok: bool = False
) -> None:
    """Start the warm process in the background, unless one holds the lock (starting or
    serving; `held_ok`: a retiring one, which lets go of it). With `after`, it warms up only
    once process `after` has ended. Its environment has no secrets: each child gets its
    client's. A runtime directory that cannot be used, or another system than Linux: none,
    quietly."""
    if not supported():
        return
    try:
        lock = os.open(join(folder, LOCK), os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        if not held_ok:
            os.close(lock)
            return
    os.close(lock)  # the server takes it for good; two starting at once: one wins there
    from agent_cli.core.outside import spawn

    keep = ("PATH", "PYTHONPATH", "HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "TMPDIR", "LANG")
    env = {k: v for k, v in os.environ.items() if k in keep or k.startswith("LC_")}
    cmd = [sys.executable, "-m", "agent_cli.cli.warm.server", folder, key, str(idle_s)]
    cmd += [] if after is None else [str(after)]
    try:
        spawn.popen(
            cmd, env=env, cwd="/", stdin=spawn.DEVNULL, stdout=spawn.DEVNULL,
            stderr=spawn.DEVNULL, start_new_session=True, close_fds=True,
        )  # fmt: skip
    except OSError as e:
        note(folder, f"could not start the warm process ({e})")
        return
    note(folder, "started the warm process in the background")
