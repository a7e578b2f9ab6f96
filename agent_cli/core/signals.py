"""SIGTERM and SIGHUP end a run the way Ctrl-C does: the running task is cancelled, so tools
kill their process groups and every tool call in history gets its result, then the front end
reports (the JSON result with `is_error`) and exits 128 + the signal number (143, 129).

One rule for everything that runs under an event loop and must stop cleanly when the system or
a closed terminal asks it to.
"""

from __future__ import annotations

import asyncio
import signal
from dataclasses import dataclass

ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


@dataclass
class Ending:
    """Which ending signal arrived, if any."""

    signum: int | None = None

    @property
    def exit_code(self) -> int:
        return 128 + (self.signum or 0)

    @property
    def message(self) -> str:
        name = signal.Signals(self.signum).name if self.signum else "a signal"
        return f"terminated by {name}"


def end_like_ctrl_c(ending: Ending | None = None) -> Ending:
    """From now on SIGTERM and SIGHUP cancel the current task once (as asyncio.run's Ctrl-C
    does); the returned Ending says which arrived. Call it inside the running loop."""
    loop = asyncio.get_running_loop()
    target = asyncio.current_task()
    ending = ending or Ending()

    def on_signal(signum: int) -> None:
        if ending.signum is None and target is not None:
            ending.signum = signum
            target.cancel()

    for signum in ENDING_SIGNALS:
        loop.add_signal_handler(signum, on_signal, signum)
    return ending
