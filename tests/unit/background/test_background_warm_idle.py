"""The warm process and the background sessions forked from it: a running one keeps it from
idling out (the next session is forked too, not spawned), never from retiring (a new version's
warm process waits for this one's lock)."""

from __future__ import annotations

import os
from pathlib import Path

from agent_cli.cli.warm.server import Server


def test_a_background_session_keeps_the_warm_process_but_not_through_a_retirement(tmp_path: Path):
    server = Server(tmp_path, "key", idle_s=0.0, lock=-1)
    assert server.done()  # idle: nothing runs
    server.detached.add(12345)
    assert not server.done()
    assert server.status()["sessions"] == 1
    server.retire("another version")
    assert server.done()
    server.selector.close()
    for fd in (server.wakeup_r, server.wakeup_w):
        os.close(fd)
