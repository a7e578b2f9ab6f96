"""The detached process of one background session: `python -m agent_cli.ext.background.child
RECORD`. The launcher made it the leader of a session of its own (no terminal: a closed one's
SIGHUP never reaches it), stdin /dev/null, stdout and stderr its log.

It runs the record's prompt in a Runtime as `agent run` would, but asks as `agent chat` does
(answering.py), keeps its record and log from its events (status.py), and ends as `agent run`
ends: SIGTERM (`agent stop`) cancels the turn like Ctrl-C, so its tools are killed, every call
in the transcript has its result and `--continue` resumes it."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from asyncio import StreamReader, StreamWriter
from functools import partial
from pathlib import Path
from typing import Any

from agent_cli.core.options import Options
from agent_cli.ext.background import registry
from agent_cli.ext.background.acp.acp_hub import Hub
from agent_cli.ext.background.status import Status

STOPPED_BY_USER = "stopped with agent stop"


def main(argv: list[str]) -> None:
    from agent_cli.cli.entry import settle
    from agent_cli.core.outside import reap

    reap.adopt()  # what its tools leave behind is reaped here, not by init
    code = asyncio.run(run(Path(argv[0])))
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)  # a message's ring, too late: not an ending
    settle()
    os._exit(code)


def options_of(spec: dict[str, Any]) -> Options:
    """The launcher's Options, as `launch.spec_of` wrote them."""
    fields = dict(spec["options"])
    fields["workspace"] = Path(fields["workspace"])
    if fields.get("state_dir") is not None:
        fields["state_dir"] = Path(fields["state_dir"])
    fields["add_dirs"] = tuple(Path(p) for p in fields.get("add_dirs", ()))
    return Options(**fields)


async def run(path: Path) -> int:
    from agent_cli.cli.failures import failure_line
    from agent_cli.cli.worktree_session import in_worktree
    from agent_cli.core.signals import end_like_ctrl_c

    record = registry.read(path)
    if record is None:
        sys.stderr.write(f"agent: no background session is recorded at {path}\n")
        return 2
    ending = end_like_ctrl_c()
    asyncio.get_running_loop().remove_signal_handler(signal.SIGHUP)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # no terminal is ours to lose
    status = Status(path)
    me = os.getpid()
    status.set(pid=me, process_start=registry.process_start(me), state="working")
    spec = record.data["spec"]
    try:  # a bare --worktree: the worktree takes the session's name
        worktree = record.name if spec.get("worktree") == "" else spec.get("worktree")
        with in_worktree(options_of(spec), worktree, spec.get("base")) as options:
            if options.worktree is not None:
                status.set(worktree=options.worktree)
            return await session(record, options, status)
    except asyncio.CancelledError:
        stopping = registry.read(path)
        asked = stopping is not None and stopping.data.get("stopping")
        status.finish("stopped", STOPPED_BY_USER if asked else ending.message)
        return ending.exit_code
    except Exception as e:  # one line in the record and the log, as agent run
        line, code = failure_line(e)
        status.finish("failed", line)
        return code


async def session(record: registry.Record, options: Options, status: Status) -> int:
    """The prompt's turn in a Runtime that asks through the session's socket, then the turns
    of the messages it is sent (talking.py), until it has been idle long enough."""
    from agent_cli.ext.background.answering import Waiting, serve
    from agent_cli.ext.background.talking import Talk, extensions_for
    from agent_cli.runtime.build import build_runtime

    waiting = Waiting(status)
    runtime = build_runtime(options, approver=waiting, extensions=extensions_for(options))
    runtime.planning.answer_with(waiting)  # ask_user and present_plan wait as approvals do
    status.set(session_id=runtime.session.id, last="started")
    if options.goal is not None:
        runtime.extension("goals")  # made now: it outlives the turn (as in agent run)
    socket, hub = Path(str(record.data["socket"])), Hub(runtime, waiting)
    status.watchers.append(hub.event)  # its events to the attached ACP clients
    server, finished = await serve(waiting, str(socket), partial(client, hub)), False
    try:
        reason = await Talk(record, runtime, status).run(str(record.data["spec"]["prompt"]))
        finished = True
        status.finish(status.ended or "done", reason)
        return 0 if status.ended in ("", "done") else 1
    finally:
        server.close()
        hub.close()
        socket.unlink(missing_ok=True)
        await runtime.aclose(wait=finished)


async def client(hub: Hub, first: bytes, reader: StreamReader, writer: StreamWriter) -> None:
    """One ACP client of the session's socket: the SDK is loaded when the first one comes."""
    from agent_cli.ext.background.acp.acp_session import serve_client

    await serve_client(hub, first, reader, writer)


if __name__ == "__main__":
    main(sys.argv[1:])
