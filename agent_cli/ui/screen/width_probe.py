"""Which width the terminal really drew each frame at.

A terminal that reflows (tmux, most emulators) re-wraps its rows the moment it is resized, but
the program learns the new size later: tmux tells it up to 250 ms afterwards, and bytes already
on their way are read at the new width anyway. A frame or a commit drawn for the old width in
that gap lands where no arithmetic on the old layout can find it, so the region cannot be
erased exactly. Each drawn frame therefore ends with a probe: the cursor is sent to the last
column and its position asked (`CSI 6n`), then put back. Answers come in the order asked, so
the column of each probe's answer is the width the terminal had when it drew that frame. A
frame drawn at another width than it was laid out for makes the screen untrusted: the next
re-lay writes it all again from the top (ui/screen/commits.py) instead of erasing what it believes
is there. The other questions of position (prompt-toolkit's, the bottom anchor's) are kept in the
same queue, so each answer reaches its asker. Imports only the standard library: the screen is
drawn before anything heavy is loaded.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

PROBE = "\x1b7\x1b[999C\x1b[6n\x1b8"  # save the cursor, to the last column, ask, restore
LOST_S = 2.0  # an answer this late is not coming (another program had the terminal)
RENDERER, ANCHOR = "renderer", "anchor"  # who else asks where the cursor is


@dataclass(frozen=True)
class WidthProbe:
    columns: int  # the width the frame was laid out for
    generation: int  # screens written again from the top since the program started
    at: float


class WidthProbes:
    """The questions asked of the terminal, oldest first: a WidthProbe of ours, or the name of who
    else asked where the cursor is (prompt-toolkit's renderer, the bottom anchor)."""

    def __init__(self) -> None:
        self.enabled = False  # set once the terminal has answered a position request
        self.owed: deque[WidthProbe | str] = deque()
        self.generation = 0
        self.drawn_elsewhere = False  # a frame of this generation landed at another width

    def probe(self, columns: int) -> str:
        """Bytes that end a frame laid out for `columns`: empty until the terminal answers."""
        if not self.enabled:
            return ""
        self.owed.append(WidthProbe(columns, self.generation, time.monotonic()))
        return PROBE

    def asked(self, by: str) -> None:
        """`by` asked where the cursor is: the next answer not owed before is theirs."""
        self.owed.append(by)

    def owes(self, asker: str) -> bool:
        return asker in self.owed

    def answer(self, column: int) -> str | None:
        """A position report arrived (1-based `column`): who asked for it (None: a probe)."""
        self.enabled = True
        if not self.owed:
            return RENDERER  # nobody we know of: prompt-toolkit takes what it did not ask for
        asked = self.owed.popleft()
        if isinstance(asked, str):
            return asked
        if asked.generation == self.generation and column != asked.columns:
            self.drawn_elsewhere = True
        return None

    def trusted(self) -> bool:
        """Whether every frame so far was drawn at the width it was laid out for, as far as
        the terminal has said: a question still unanswered could be one that was not."""
        lost = time.monotonic() - LOST_S
        while self.owed and isinstance(self.owed[0], WidthProbe) and self.owed[0].at < lost:
            self.owed.popleft()
        pending = any(
            isinstance(asked, WidthProbe) and asked.generation == self.generation
            for asked in self.owed
        )
        return not (self.drawn_elsewhere or pending)

    def written_again(self) -> None:
        """The screen was written again from the top: what earlier frames did is gone."""
        self.generation += 1
        self.drawn_elsewhere = False
