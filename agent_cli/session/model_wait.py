"""When background work may run without taking a turn's time: no turn is running, or the
running turn's model request has been out a while with no answer yet (the turn has nothing to
do until it comes). Work such as an episode's writing waits for that in `quiet()`; once it
starts it runs to its end."""

from __future__ import annotations

import asyncio

# how long a request goes unanswered before the turn counts as waiting on the model: a reply
# that streams at once (a cached prefix, a local model) never lends its turn's time
GRACE_S = 0.05


class ModelWait:
    def __init__(self) -> None:
        self._quiet = True
        self._waiters: list[asyncio.Future[None]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._turn = False

    def turn_started(self) -> None:
        self._turn = True
        self._set(False)

    def turn_ended(self) -> None:
        self._cancel_timer()
        self._turn = False
        self._set(True)

    def request_sent(self) -> None:
        """The turn's request is out: quiet from GRACE_S on, unless an answer comes first."""
        self._cancel_timer()
        if self._turn:
            self._set(False)
            self._timer = asyncio.get_running_loop().call_later(GRACE_S, self._set, True)

    def answered(self) -> None:
        """The reply is in: the turn works on it (its tools, the next request)."""
        self._cancel_timer()
        if self._turn:
            self._set(False)

    async def quiet(self) -> None:
        if self._quiet:
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    def _set(self, quiet: bool) -> None:
        self._quiet = quiet
        if quiet:
            for waiter in self._waiters:
                if not waiter.done() and not waiter.get_loop().is_closed():
                    waiter.set_result(None)
            self._waiters.clear()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
