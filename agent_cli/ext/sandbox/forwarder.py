"""Inside the sandbox, before the command: the one way out to the network.

The sandbox has its own network namespace (only loopback), and it may not make a unix socket
(sandbox/seccomp.py), so the agent hands it one end of a socket pair instead: this program
inherits it as CHANNEL. It listens on an ephemeral port of the sandbox's loopback, leaves a
child that passes each accepted connection, as a descriptor (SCM_RIGHTS), over the channel to
the agent's proxy outside, which then talks to the client directly, points HTTP_PROXY,
HTTPS_PROXY and ALL_PROXY at the port and execs the command (same pid, same exit status), which
keeps neither the channel nor the listener. The child dies with the sandbox's pid namespace
when the command ends.

Run as `python -I -S forwarder.py CHANNEL -- COMMAND...` before every sandboxed command that may
reach the network: built-in modules only (`_socket`, not its Python wrapper, whose imports cost
more than the interpreter's start), so it costs a bare interpreter's start-up.
"""

import _socket
import os
import sys

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
SCM_RIGHTS = 1
SOL_SOCKET = 1


def _serve(listener: _socket.socket, channel: _socket.socket) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # never holds the command's output pipe open
        os.dup2(null, fd)
    while True:
        try:
            fd, _ = listener._accept()  # type: ignore[attr-defined]  # the C accept: an fd
        except OSError:
            continue
        try:
            channel.sendmsg([b"c"], [(SOL_SOCKET, SCM_RIGHTS, fd.to_bytes(4, sys.byteorder))])
        except OSError:  # the agent's proxy is gone: nothing more gets out
            return
        finally:
            os.close(fd)


def proxy_env(env: dict[str, str], port: int) -> dict[str, str]:
    url = f"http://127.0.0.1:{port}"
    out = {k: v for k, v in env.items() if k.lower() != "no_proxy"}
    for name in PROXY_VARS:
        out[name] = out[name.lower()] = url
    return out


def main(argv: list[str]) -> None:
    if len(argv) < 4 or argv[2] != "--" or not argv[1].isdigit():
        sys.exit("usage: forwarder.py CHANNEL -- COMMAND...")
    channel, command = _socket.socket(fileno=int(argv[1])), argv[3:]
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port = listener.getsockname()[1]
    if os.fork() == 0:
        try:
            _serve(listener, channel)
        finally:
            os._exit(0)
    listener.close()
    channel.close()
    os.execvpe(command[0], command, proxy_env(dict(os.environ), port))


if __name__ == "__main__":
    main(sys.argv)
