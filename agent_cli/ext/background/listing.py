"""`agent ps [--here] [--json] [--watch]`: this user's background sessions, as a table or JSON;
`--watch` draws them again as they change (in place on a terminal, a new block per change
elsewhere) until Ctrl-C.

Answered before typer and the command line load (`quick`, cli/entry.py's QUICK): this module and
the registry are all it imports, and it is loaded without the extension's package (whose
declaration costs the contract and its settings). cli.py's `ps` answers the same way with the
same functions, for `--help` and what this parser leaves to typer."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from agent_cli.ext.background import registry

TYPE_CHECKING = False  # typing itself is not imported (the registry's note)
if TYPE_CHECKING:
    from typing import Any, TextIO

FIELDS = ("name", "state", "reason", "workspace", "worktree", "session_id", "pid", "turns")
EMPTY = "no background sessions (agent run --bg -p PROMPT starts one)"
WATCH_S = 0.5
HOME_AND_CLEAR = "\x1b[H\x1b[J"


def rows(here: bool, now: float) -> list[dict[str, Any]]:
    """Every recorded session as `agent ps --json` lists it (`here`: this workspace's)."""
    workspace = str(Path.cwd().resolve())
    found = [r for r in registry.records() if not here or r.data.get("workspace") == workspace]
    return [_row(r, now) for r in found]


def _row(record: registry.Record, now: float) -> dict[str, Any]:
    row = {field: record.data.get(field) for field in FIELDS}
    since = float(record.data.get("since", record.data.get("created", now)))
    data = record.data
    last = {"cost_usd": data.get("cost_usd"), "last": data.get("last", ""), "log": data.get("log")}
    return {**row, "state": record.state, "for_s": round(now - since, 1), **last}


def _ago(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


def table(listed: list[dict[str, Any]]) -> str:
    home = str(Path.home())
    lines = [("NAME", "STATE", "FOR", "TURNS", "COST", "WORKSPACE", "LAST")]
    for row in listed:
        cost = "-" if row["cost_usd"] is None else f"${row['cost_usd']:.3f}"
        where = str(row["workspace"]).replace(home, "~", 1)
        where += f" ({row['worktree']})" if row["worktree"] else ""
        ended = row["state"] in ("stopped", "failed") and row["reason"]
        last = row["reason"] if ended else row["last"]
        line = (row["name"], row["state"], _ago(row["for_s"]), str(row["turns"]), cost, where)
        lines.append((*line, str(last)))
    widths = [max(len(line[i]) for line in lines) for i in range(6)]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=False)) + f"  {line[6]}"
        for line in lines
    )


def shown(listed: list[dict[str, Any]], as_json: bool) -> str:
    """What `agent ps` prints (without its last newline)."""
    if as_json:
        return json.dumps(listed, ensure_ascii=False)
    return table(listed) if listed else EMPTY


def ps(here: bool, as_json: bool, out: TextIO) -> None:
    out.write(shown(rows(here, time.time()), as_json) + "\n")


def watch(here: bool, as_json: bool, out: TextIO, every_s: float = WATCH_S) -> int:
    """Until Ctrl-C (exit 0): on a terminal the list drawn again in place whenever what it shows
    changes (its FOR column too); elsewhere a new block, after a blank line (JSON: a new line),
    each time a session's state or anything but its age changes."""
    tty, last_drawn, last_seen = out.isatty(), "", None
    try:
        while True:
            listed = rows(here, time.time())
            drawn = shown(listed, as_json)
            seen = [{k: v for k, v in row.items() if k != "for_s"} for row in listed]
            if tty and drawn != last_drawn:
                out.write(f"{HOME_AND_CLEAR}{drawn}\n")
            elif not tty and seen != last_seen:
                out.write(("" if last_seen is None or as_json else "\n") + drawn + "\n")
            out.flush()
            last_drawn, last_seen = drawn, seen
            time.sleep(every_s)
    except KeyboardInterrupt:
        return 0
    except BrokenPipeError:  # its reader (head, a pager) is gone
        return 0


def quick(argv: list[str]) -> int | None:
    """`agent ps ...` answered here; None for anything typer should answer (--help, a bad
    flag: its message, exit 2)."""
    if not set(argv) <= {"--here", "--json", "--watch"}:
        return None
    here, as_json = "--here" in argv, "--json" in argv
    if "--watch" in argv:
        return watch(here, as_json, sys.stdout)
    try:
        listed = rows(here, time.time())
    except OSError:  # an unreadable registry: typer's path says so in one line
        return None
    sys.stdout.write(shown(listed, as_json) + "\n")
    return 0
