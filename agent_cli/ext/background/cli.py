"""`agent ps [--here] [--json]`, `agent logs NAME [-f]`, `agent stop NAME`, `agent rm NAME`:
this user's background sessions, from any directory. Without the SDK."""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

import typer

from agent_cli.cli.common import guarded
from agent_cli.core.errors import UsageError
from agent_cli.ext.background import mail, registry

NAME = typer.Argument(..., help="The session's name (agent ps).")
STOP_WAIT_S = 20.0  # SIGTERM's turn to end cleanly; then SIGKILL
POLL_S = 0.05
FIELDS = ("name", "state", "reason", "workspace", "worktree", "session_id", "pid", "turns")


def find(name: str) -> registry.Record:
    """The session `name`: this workspace's, else the only one of that name; UsageError."""
    return mail.find(name, str(Path.cwd().resolve()))


def _row(record: registry.Record, now: float) -> dict[str, Any]:
    row = {field: record.data.get(field) for field in FIELDS}
    since = float(record.data.get("since", record.data.get("created", now)))
    return {**row, "state": record.state, "for_s": round(now - since, 1), **_last(record)}


def _last(record: registry.Record) -> dict[str, Any]:
    data = record.data
    return {"cost_usd": data.get("cost_usd"), "last": data.get("last", ""), "log": data.get("log")}


def _ago(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


def _table(rows: list[dict[str, Any]]) -> str:
    home = str(Path.home())
    lines = [("NAME", "STATE", "FOR", "TURNS", "COST", "WORKSPACE", "LAST")]
    for row in rows:
        cost = "-" if row["cost_usd"] is None else f"${row['cost_usd']:.3f}"
        where = str(row["workspace"]).replace(home, "~", 1)
        where += f" ({row['worktree']})" if row["worktree"] else ""
        last = (
            row["reason"]
            if row["state"] in ("stopped", "failed") and row["reason"]
            else row["last"]
        )
        line = (row["name"], row["state"], _ago(row["for_s"]), str(row["turns"]), cost, where)
        lines.append((*line, str(last)))
    widths = [max(len(line[i]) for line in lines) for i in range(6)]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=False)) + f"  {line[6]}"
        for line in lines
    )


@guarded
def ps(
    here: bool = typer.Option(False, "--here", help="Only this workspace's sessions."),
    as_json: bool = typer.Option(False, "--json", help="One JSON array."),
) -> None:
    """Every background session of this user: running, waiting, or ended and not yet rm'd."""
    now, workspace = time.time(), str(Path.cwd().resolve())
    found = [r for r in registry.records() if not here or r.data.get("workspace") == workspace]
    rows = [_row(r, now) for r in found]
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False))
    elif not rows:
        typer.echo("no background sessions (agent run --bg -p PROMPT starts one)")
    else:
        typer.echo(_table(rows))


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
