"""Inside the sandbox, before the command: the one way out to the network.

The sandbox has its own network namespace (only loopback), so the agent's proxy, which runs
outside, is reached through a unix socket visible inside. This program listens on an ephemeral
port of the sandbox's loopback, leaves a child that relays each connection to that socket, points
HTTP_PROXY/HTTPS_PROXY/ALL_PROXY at the port and execs the command (same pid, same exit status).
The relay dies with the sandbox's pid namespace when the command ends.

Run as `python -I -S forwarder.py SOCKET -- COMMAND...`: standard library only, no agent imports,
so it costs a bare interpreter's start-up.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
CHUNK = 65_536


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(CHUNK):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)


def _relay(conn: socket.socket, path: str) -> None:
    with conn, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as up:
        try:
            up.connect(path)
        except OSError:
            return  # the agent's proxy is gone: the client sees the connection close
        back = threading.Thread(target=_pipe, args=(up, conn), daemon=True)
        back.start()
        _pipe(conn, up)
        back.join()


def _serve(listener: socket.socket, path: str) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # never holds the command's output pipe open
        os.dup2(null, fd)
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            continue
        threading.Thread(target=_relay, args=(conn, path), daemon=True).start()


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
    listener = socket.create_server(("127.0.0.1", 0), backlog=128)
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
