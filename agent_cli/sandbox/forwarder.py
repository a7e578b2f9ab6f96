"""Inside the sandbox, before the command: the one way out to the network.

The sandbox has its own network namespace (only loopback), so the agent's proxy, which runs
outside, is reached through a unix socket visible inside. This program listens on an ephemeral
port of the sandbox's loopback, leaves a child that relays each connection to that socket, points
HTTP_PROXY/HTTPS_PROXY/ALL_PROXY at the port and execs the command (same pid, same exit status).
The relay dies with the sandbox's pid namespace when the command ends.

Run as `python -I -S forwarder.py SOCKET -- COMMAND...` before every sandboxed command that may
reach the network: built-in modules only (`_socket`, `_thread`, not their Python wrappers, whose
imports cost more than the interpreter's start), so it costs a bare interpreter's start-up.
"""

import _socket
import _thread
import os
import sys

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
CHUNK = 65_536


def _pipe(src: _socket.socket, dst: _socket.socket, done: _thread.LockType | None) -> None:
    try:
        while data := src.recv(CHUNK):
            dst.sendall(data)
    except OSError:
        pass
    try:  # noqa: SIM105 - contextlib's imports would cost more than the interpreter's start
        dst.shutdown(_socket.SHUT_WR)
    except OSError:
        pass
    if done is not None:
        done.release()


def _relay(fd: int, path: str) -> None:
    conn = _socket.socket(fileno=fd)
    up = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        up.connect(path)
    except OSError:  # the agent's proxy is gone: the client sees the connection close
        conn.close()
        up.close()
        return
    done = _thread.allocate_lock()
    done.acquire()
    _thread.start_new_thread(_pipe, (up, conn, done))
    _pipe(conn, up, None)
    done.acquire()  # the other direction has finished too
    conn.close()
    up.close()


def _serve(listener: _socket.socket, path: str) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # never holds the command's output pipe open
        os.dup2(null, fd)
    while True:
        try:
            fd, _ = listener._accept()  # type: ignore[attr-defined]  # the C accept: an fd
        except OSError:
            continue
        _thread.start_new_thread(_relay, (fd, path))


def proxy_env(env: dict[str, str], port: int) -> dict[str, str]:
    url = f"http://127.0.0.1:{port}"
    out = {k: v for k, v in env.items() if k.lower() != "no_proxy"}
    for name in PROXY_VARS:
        out[name] = out[name.lower()] = url
    return out


def main(argv: list[str]) -> None:
    if len(argv) < 4 or argv[2] != "--":
        sys.exit("usage: forwarder.py SOCKET -- COMMAND...")
    path, command = argv[1], argv[3:]
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port = listener.getsockname()[1]
    if os.fork() == 0:
        try:
            _serve(listener, path)
        finally:
            os._exit(0)
    listener.close()
    os.execvpe(command[0], command, proxy_env(dict(os.environ), port))


if __name__ == "__main__":
    main(sys.argv)
