"""Blank rows at the top of the bottom region: the rows a re-lay frees, kept in the region.

A change of columns re-wraps the region's rows (tmux: each row wider than the new width is
split), which pushes the screen's top rows into scrollback; re-laid at the new width, the region
takes fewer rows than its re-wrapped copy did (ui/screen/commits.py: `relay`). The rows it frees
were left blank above it, between the conversation and the region, where the next commit was
written under them: a blank run inside the conversation in scrollback (35 rows after 140 -> 100
-> 80 -> 140 columns mid-turn). They are the region's own rows instead, at its top: a commit is
written into them (the conversation then goes on right under its last line), the live area
grows into them, and the next re-lay erases them with the region. Only a further narrowing
before any commit that grows the region by more rows than the conversation has on screen
pushes some of them into scrollback (the terminal's re-wrap, which no program undoes).
Imports only prompt_toolkit: the screen is drawn before anything heavy is loaded.
"""

from __future__ import annotations

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.layout import ConditionalContainer, Dimension, Window


class Gap:
    def __init__(self) -> None:
        self.floor = 0  # rows the region keeps (gap and content) until its content fills them
        self.rows = 0  # blank rows at its top in this frame

    def container(self) -> ConditionalContainer:
        window = Window(height=lambda: Dimension.exact(self.rows), dont_extend_height=True)
        return ConditionalContainer(window, filter=Condition(lambda: self.rows > 0))

    def keep(self, floor: int) -> None:
        """The region, just re-laid, takes `floor` rows, its content at their bottom."""
        self.floor = max(floor, 0)

    def fit(self, app: Application[None]) -> None:
        """Before each frame: the gap is what the content leaves of the floor; once the
        content fills it the floor is forgotten (the region then grows and shrinks as ever)."""
        if not self.floor:
            self.rows = 0
            return
        size = app.output.get_size()
        total = app.layout.container.preferred_height(size.columns, size.rows).preferred
        self.rows = max(self.floor - (total - self.rows), 0)
        if not self.rows:
            self.floor = 0

    def took(self, rows: int) -> int:
        """A commit of `rows` rows is written into the gap's rows: how many of them it fills."""
        filled = min(rows, self.rows)
        self.floor = max(self.floor - rows, 0) if self.floor else 0
        self.rows -= filled
        return filled

    def reset(self) -> None:
        self.floor = self.rows = 0
