"""Which width the terminal really drew each frame at.

A terminal that reflows (tmux, most emulators) re-wraps its rows the moment it is resized, but
the program learns the new size later: tmux tells it up to 250 ms afterwards, and bytes already
on their way are read at the new width anyway. A frame or a commit drawn for the old width in
that gap lands where the old layout does not say. Each drawn frame therefore ends with a
probe: the cursor is sent to the last column and its position asked (`CSI 6n`), then put back.
Answers come in the order asked, so the column of each probe's answer is the width the terminal
had when it drew that frame. A frame drawn at another width than it was laid out for makes the
screen untrusted: the next re-lay erases the region from where the last frame drawn at its
width left it, counting what was committed since (ui/screen/commits.py). The other questions of
position (prompt-toolkit's, the bottom anchor's) are kept in the same queue, so each answer
reaches its asker. Imports only the standard library: the screen is drawn before anything heavy
is loaded.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

PROBE = "\x1b7\x1b[999C\x1b[6n\x1b8"  # save the cursor, to the last column, ask, restore
LOST_S = 2.0  # an answer this late is not coming (another program had the terminal)
RENDERER, ANCHOR = "renderer", "anchor"  # who else asks where the cursor is


@dataclass(frozen=True)
class RegionRows:
    """The bottom region as the terminal holds it: the cells of each row from its top down to
    the cursor's, and the cursor (row, column) inside it (ui/screen/region_rows.py)."""

    widths: tuple[int, ...] = ()
    cursor: tuple[int, int] = (0, 0)


NOTHING = RegionRows()  # erased: the cursor on the region's top-left cell


@dataclass(frozen=True)
class WidthProbe:
    columns: int  # the width the frame was laid out for
    generation: int  # regions re-laid since the program started
    at: float
    region: RegionRows = NOTHING  # as the frame left it
    commits: int = 0  # commits written before it, this generation


class WidthProbes:
    """The questions asked of the terminal, oldest first: a WidthProbe of ours, or the name of who
    else asked where the cursor is (prompt-toolkit's renderer, the bottom anchor)."""

    def __init__(self) -> None:
        self.enabled = False  # set once the terminal has answered a position request
        self.owed: deque[WidthProbe | str] = deque()
        self.generation = 0
        self.drawn_elsewhere = False  # a frame of this generation landed at another width
        # the region as the last frame drawn where it was laid out left it (before any that
        # was not), and what was committed after that frame, oldest first
        self.reference = NOTHING
        self.commits = 0
        self.unconfirmed: deque[tuple[int, str]] = deque()
        self.foreign: set[int] = set()  # widths frames of this generation were drawn at instead

    def probe(self, columns: int, region: RegionRows = NOTHING) -> str:
        """Bytes that end a frame laid out for `columns`: empty until the terminal answers."""
        if not self.enabled:
            return ""
        self.owed.append(
            WidthProbe(columns, self.generation, time.monotonic(), region, self.commits)
        )
        return PROBE

    def committed(self, text: str) -> None:
        """`text` is written above the region now (before the probe of its frame)."""
        if self.enabled:
            self.unconfirmed.append((self.commits, text))
            self.commits += 1

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
        if asked.generation != self.generation or self.drawn_elsewhere:
            return None
        if column != asked.columns:
            self.drawn_elsewhere = True
            self.foreign.add(column)
            return None
        self.reference = asked.region
        while self.unconfirmed and self.unconfirmed[0][0] < asked.commits:
            self.unconfirmed.popleft()
        return None

    def pending(self) -> bool:
        """Whether a frame of this generation is still to say where it was drawn (an answer
        LOST_S late is not coming: another program had the terminal)."""
        lost = time.monotonic() - LOST_S
        while self.owed and isinstance(self.owed[0], WidthProbe) and self.owed[0].at < lost:
            self.owed.popleft()
        return any(
            isinstance(asked, WidthProbe) and asked.generation == self.generation
            for asked in self.owed
        )

    def trusted(self) -> bool:
        """Whether every frame so far was drawn at the width it was laid out for, as far as
        the terminal has said: a question still unanswered could be one that was not."""
        return not (self.pending() or self.drawn_elsewhere)

    def lost_track(self, columns: int) -> bool:
        """Whether frames were drawn at a width the terminal no longer has: it re-wrapped their
        rows again since (several changes within tmux's 250 ms), which no count follows."""
        return bool(self.foreign - {columns})

    def since_reference(self) -> tuple[RegionRows, list[str]]:
        """The region as the last frame drawn where it was laid out left it, and the texts
        committed after that frame."""
        return self.reference, [text for _, text in self.unconfirmed]

    def relaid(self) -> None:
        """The region was erased and is drawn anew: what earlier frames did is gone."""
        self.generation += 1
        self.drawn_elsewhere = False
        self.reference, self.unconfirmed, self.foreign = NOTHING, deque(), set()
