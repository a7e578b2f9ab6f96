"""The supervising watcher: one small process per agent run that kills every job's process
group when the agent dies, however it dies (`kill -9` included).

The agent holds the write end of a pipe that is this process's stdin and writes `+PGID` when a
job starts and `-PGID` when it ended or the user kept it. The kernel closes that pipe when the
agent exits for any reason, so end of input means: the agent is gone, kill what is left. It runs
in a session of its own, so the terminal's hangup or Ctrl-C never reach it first.

Standard library only, and nothing of the agent is imported: it must start fast and cannot fail
on a broken install.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterable

GRACE_S = 0.5


def alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def kill_groups(pgids: set[int], grace_s: float = GRACE_S) -> None:
    """SIGTERM to every group, then SIGKILL to whatever still runs after `grace_s`."""
    for pgid in pgids:
        _signal(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while any(alive(p) for p in pgids) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pgid in pgids:
        _signal(pgid, signal.SIGKILL)


def _signal(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def watch(lines: Iterable[str]) -> set[int]:
    """The groups still to kill once `lines` (the pipe) ends."""
    groups: set[int] = set()
    for line in lines:
        text = line.strip()
        if len(text) > 1 and text[1:].isdigit():
            (groups.add if text[0] == "+" else groups.discard)(int(text[1:]))
    return groups


def main() -> None:
    if os.fork() > 0:  # the agent reaps the parent at once; the watcher is nobody's child
        os._exit(0)
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    kill_groups(watch(sys.stdin))


if __name__ == "__main__":
    main()
