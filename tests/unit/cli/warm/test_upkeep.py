"""The warm process started by an in-process client waits for that client's end, however it
ends (a pidfd, or its state where there are none), before it warms up."""

from __future__ import annotations

import os
import subprocess
import threading

import pytest

from agent_cli.cli.warm import upkeep


def waiting_for(pid: int) -> threading.Thread:
    thread = threading.Thread(target=upkeep.wait_for_exit, args=(pid,), daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("pidfds", [True, False])
def test_it_waits_until_the_process_ended_even_killed(
    pidfds: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not pidfds:

        def none(pid: int) -> int:
            raise OSError(38, "Function not implemented")

        monkeypatch.setattr(os, "pidfd_open", none)
    proc = subprocess.Popen(["sleep", "60"])
    thread = waiting_for(proc.pid)
    thread.join(0.3)
    assert thread.is_alive()  # still running: still waiting
    proc.kill()  # not reaped yet: a zombie has ended too
    thread.join(10)
    assert not thread.is_alive()
    proc.wait()


def test_a_process_already_gone_is_not_waited_for() -> None:
    proc = subprocess.Popen(["true"])
    proc.wait()
    thread = waiting_for(proc.pid)
    thread.join(10)
    assert not thread.is_alive()
