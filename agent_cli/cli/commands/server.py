"""`agent server status|stop`: the warm per-user process that `agent run` goes through."""

from __future__ import annotations

import json
import os
import time

import typer

from agent_cli.cli.common import guarded
from agent_cli.core.errors import AgentError
from agent_cli.core.text.counts import counted

server_app = typer.Typer(no_args_is_help=True)


def _ask(op: str) -> dict[str, object] | None:
    from agent_cli.cli.warm.client import connect
    from agent_cli.cli.warm.place import SOCKET, private_dir
    from agent_cli.cli.warm.wire import Lines, send_request

    sock = connect(os.path.join(private_dir(), SOCKET))  # noqa: PTH118 - paths are str there
    if sock is None:
        return None
    with sock:
        send_request(sock, {"op": op}, [])
        return Lines(sock).next()


def _describe(status: dict[str, object] | None) -> str:
    if status is None:
        return "No warm process is running."
    if "refused" in status:
        why = status["refused"]
        return f"The warm process serves another context ({why}): runs here go in-process."
    started = float(str(status.get("started", 0)))
    up = time.time() - started
    rss = int(str(status.get("rss_kib", 0))) / 1024
    served = counted(int(str(status.get("served", 0))), "run")
    return (
        f"pid {status.get('pid')}, up {up:.0f} s, {served} served, "
        f"{status.get('running')} running, {rss:.0f} MiB resident, "
        f"exits after {float(str(status.get('idle_s', 0))) / 60:g} min idle"
    )


@server_app.command("status")
@guarded
def status(as_json: bool = typer.Option(False, "--json", help="One JSON object.")) -> None:
    """Whether the warm process runs, and what it has done."""
    answer = _ask("status")
    typer.echo(json.dumps(answer) if as_json else _describe(answer))
    refused = answer.get("last_refused") if answer else None
    if refused and not as_json:
        typer.echo(f"last client refused (it ran in-process): {refused}")


@server_app.command("stop")
@guarded
def stop() -> None:
    """Stop the warm process: running runs finish; the next `agent run` starts a new one."""
    answer = _ask("stop")
    if answer is not None and "refused" in answer:
        raise AgentError(
            f"The warm process serves another context ({answer['refused']}): not stopped."
        )
    typer.echo("No warm process is running." if answer is None else f"Stopped {answer['pid']}.")
