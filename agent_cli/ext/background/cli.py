"""`agent ps [--here] [--json] [--watch]` (listing.py), `agent logs NAME [-f]`, `agent stop
NAME`, `agent rm NAME`: this user's background sessions, from any directory. Without the SDK."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import typer

from agent_cli.cli.common import guarded
from agent_cli.core.errors import UsageError
from agent_cli.ext.background import listing, mail, registry

NAME = typer.Argument(..., help="The session's name (agent ps).")
STOP_WAIT_S = 20.0  # SIGTERM's turn to end cleanly; then SIGKILL
POLL_S = 0.05


def find(name: str) -> registry.Record:
    """The session `name`: this workspace's, else the only one of that name; UsageError."""
    return mail.find(name, str(Path.cwd().resolve()))


@guarded
def ps(
    here: bool = typer.Option(False, "--here", help="Only this workspace's sessions."),
    as_json: bool = typer.Option(False, "--json", help="One JSON array."),
    watching: bool = typer.Option(
        False, "--watch", help="Draw them again as they change, until Ctrl-C."
    ),
) -> None:
    """Every background session of this user: running, waiting, or ended and not yet rm'd."""
    if watching:
        raise typer.Exit(listing.watch(here, as_json, sys.stdout))
    listing.ps(here, as_json, sys.stdout)  # as `agent ps` answers before typer loads


def _gone(record: registry.Record, within: float) -> bool:
    deadline = time.monotonic() + within
    while record.alive():
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)
    return True


@guarded
def stop(name: str = NAME) -> None:
    """End a background session as Ctrl-C ends a turn: its tools killed, its transcript whole
    (`agent run --resume ID` goes on with it)."""
    record = find(name)
    state = record.as_read().state
    if state not in registry.LIVE:
        typer.echo(f"{name} is not running ({state})")
        return
    registry.update(record.path, stopping=True)
    record.signal(signal.SIGTERM)
    if not _gone(record, STOP_WAIT_S):
        record.signal(signal.SIGKILL)
        why = f"killed: it did not end within {STOP_WAIT_S:g} s of SIGTERM"
        registry.update(record.path, state="stopped", reason=why)
    session = registry.read(record.path)
    sid = session.data.get("session_id") if session is not None else None
    typer.echo(f"{name} stopped" + (f" (agent run --resume {sid} goes on with it)" if sid else ""))


@guarded
def rm(name: str = NAME) -> None:
    """Forget an ended background session (its transcript stays, resumable)."""
    record = find(name).as_read()
    if record.state in registry.LIVE:
        raise UsageError(f"{name} is still running ({record.state}): agent stop {name} first")
    registry.forget(record)
    typer.echo(f"forgot {name}")


@guarded
def attach(
    name: str = NAME,
    acp: bool = typer.Option(False, "--acp", help="Its ACP on stdio, for an editor."),
) -> None:
    """Its conversation redrawn, its turn as it goes, its approval to answer; a typed line
    steers it; Ctrl-D detaches and it goes on."""
    from agent_cli.ext.background.acp.attach import attach as attached

    attached(find(name), acp)


@guarded
def logs(
    name: str = NAME,
    follow: bool = typer.Option(False, "--follow", "-f", help="Go on while it runs."),
) -> None:
    """What a background session did, as text."""
    record = find(name)
    path = Path(str(record.data.get("log")))
    try:
        log = path.open("rb")
    except OSError as e:
        raise UsageError(f"{name}: its log cannot be read ({e.strerror})") from e
    with log:
        while True:
            running = follow and record.alive()  # before the read: what it wrote last is read
            chunk = log.read()
            sys.stdout.buffer.write(chunk)
            sys.stdout.flush()
            if not running:
                return
            if not chunk:
                time.sleep(POLL_S * 4)
