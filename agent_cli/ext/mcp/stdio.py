"""The stdio transport: the server as a child process, JSON-RPC one line each way.

The SDK's `stdio_client` starts the process itself, where nothing can stand between the start
and the server's first instruction. Here it starts behind the agent's start gate
(core/outside/watch.py): the server runs only once the watcher knows its group, so a
`kill -9` of the agent at any moment leaves no server behind. The rest follows the SDK's
transport: a reader and a writer bridging the pipes to the session's streams, and the spec's
shutdown (close stdin, wait, then end the group).

The server runs outside the sandbox: it gets the gate's environment (the user's, less
credentials) plus its own configured `env`, and a bare command is found as the gate finds
programs, never through a relative, empty or in-workspace PATH entry (the gate's shell would
otherwise search those from the server's working directory)."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TextIO

import anyio
import mcp_types
from anyio.abc import Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from anyio.streams.text import TextReceiveStream
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage

from agent_cli.core.outside import reap
from agent_cli.core.outside.env import default_env
from agent_cli.core.outside.paths import program
from agent_cli.core.outside.watch import gated

log = logging.getLogger(__name__)

EXIT_GRACE_S = 2.0  # after its stdin closes, before the group is signalled
KILL_GRACE_S = 2.0  # after SIGTERM, before SIGKILL
FLUSH_S = 0.5

Incoming = SessionMessage | Exception
Streams = tuple[MemoryObjectReceiveStream[Incoming], MemoryObjectSendStream[SessionMessage]]


@contextlib.asynccontextmanager
async def gated_stdio(
    command: str, args: list[str], env: dict[str, str] | None, cwd: Path, errlog: TextIO
) -> AsyncIterator[Streams]:
    async def start(argv: list[str], fds: tuple[int, ...]) -> Process:
        # anyio's process (its streams are what the bridge reads): spawn.py has no anyio start
        with reap.starting():
            process = await anyio.open_process(
                argv,
                env=default_env(env),
                stderr=errlog,
                cwd=cwd,
                start_new_session=True,
                pass_fds=fds,
            )
            reap.started(process.pid)  # anyio waits for it; what it leaves is reaped here
        return process

    async with gated([found(command, cwd), *args], start) as process, _bridge(process) as streams:
        yield streams


def found(command: str, cwd: Path) -> str:
    """A bare `command`'s absolute path (looked up without relative, empty or `cwd` entries);
    a path is taken as configured. FileNotFoundError when the name is not found."""
    if os.sep in command:
        return command
    path = program(command, cwd)
    if path is None:
        why = f"{command} is not on PATH (relative, empty and in-workspace entries are skipped)"
        raise FileNotFoundError(errno.ENOENT, why)
    return path


@contextlib.asynccontextmanager
async def _bridge(process: Process) -> AsyncIterator[Streams]:
    incoming_send, incoming = anyio.create_memory_object_stream[Incoming](0)
    outgoing, outgoing_receive = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()

    async def read() -> None:
        assert process.stdout is not None
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with incoming_send:
                buffer = ""
                async for chunk in TextReceiveStream(process.stdout, errors="replace"):
                    *lines, buffer = (buffer + chunk).split("\n")
                    for line in lines:
                        await incoming_send.send(_parse(line))

    async def write() -> None:
        assert process.stdin is not None
        try:
            async with outgoing_receive:
                async for message in outgoing_receive:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(f"{data}\n".encode())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await incoming_send.aclose()  # the session sees the end instead of waiting
        finally:
            writer_done.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read)
        tasks.start_soon(write)
        try:
            yield incoming, outgoing
        finally:
            with anyio.CancelScope(shield=True):
                outgoing.close()
                with anyio.move_on_after(FLUSH_S):
                    await writer_done.wait()
                await _stop(process)
            tasks.cancel_scope.cancel()


async def _stop(process: Process) -> None:
    assert process.stdin is not None
    assert process.stdout is not None
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    with anyio.move_on_after(EXIT_GRACE_S) as waited:
        await process.wait()
    if waited.cancelled_caught:
        await terminate_posix_process_tree(process, KILL_GRACE_S)
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdout.aclose()


def _parse(line: str) -> Incoming:
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as e:
        log.info("an MCP server sent a line that is not JSON-RPC: %s", e)
        return e
