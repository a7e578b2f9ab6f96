"""The bottom region kept on the screen's last rows, on a terminal that re-wraps its rows.

A region drawn high up (a fresh terminal) is moved down once, together with everything above
it: blank lines inserted at the top of the screen push it all down over the blank rows below
the prompt. A change of columns keeps it low (ui/screen/commits.py: `relay`), so a re-wrap of
its rows has room above it; the rows a re-laid region no longer takes may be left under it
(`below`, learnt again after each resize and Ctrl-L, which never move it down: blank rows put
at the top then would sit in scrollback amid the conversation). The row is learnt
from a cursor position report; a terminal that does not answer one keeps the region where it
is, and one that cuts rows is left as it is.

Kept there, it stays there: when the region gets shorter (an approval answered, spinners done)
the screen above it moves down with it, blank lines inserted at the top, so no blank rows are
left under the prompt nor between the last committed line and it. Those blank rows at the top
(`filler`) are taken away again, lines deleted at the top, before anything would scroll the
screen: they never reach scrollback. A resize forgets them (the terminal re-wrapped the rows),
and from then on the screen above is never moved down again: blank rows at its top would be the
first a narrowing pushes into scrollback, amid the conversation (`Gap.hold`).
Imports only prompt_toolkit: the screen is drawn before anything heavy is loaded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.layout import ConditionalContainer, Dimension, Window

from agent_cli.ui.screen.reflow import terminal_reflows


@dataclass(frozen=True)
class Asked:
    """What the region looked like when the position was asked for."""

    frame: int  # the renderer's frame count: any frame since may have moved the region
    cursor_row: int  # the cursor's row inside the region


def anchor_bytes(top: int, height: int, rows: int, cursor: tuple[int, int]) -> str:
    """Bytes that move a region of `height` rows whose top is on screen row `top` (0-based)
    down to the screen's last rows, everything above it with it; the cursor is put back on
    (row, column) `cursor` of the region. Empty when the region already ends on the last row."""
    gap = rows - top - height  # blank rows below the region
    if gap <= 0:
        return ""
    row, column = cursor
    return f"\x1b[H\x1b[{gap}L\x1b[{top + gap + row + 1};{column + 1}H"


def moved_top(rows: int, kind: str, cursor_row: int, column: int) -> str:
    """Bytes that insert (`L`) or delete (`M`) `rows` lines at the screen's top, then put the
    cursor on screen row `cursor_row`, `column` (0-based)."""
    return f"\x1b[H\x1b[{rows}{kind}\x1b[{cursor_row + 1};{column + 1}H"


class BottomAnchor:
    def __init__(
        self, app: Application[None], ask: Callable[[], None], others_pending: Callable[[], bool]
    ) -> None:
        """`ask` sends the question (its answer comes to `on_report`); `others_pending` says
        whether an answer owed to someone else would be taken for ours."""
        self.app, self.ask, self.others_pending = app, ask, others_pending
        self.anchored = not terminal_reflows()  # a terminal that cuts rows leaves none behind
        self.asked: Asked | None = None
        self.deferred = False
        self.at_bottom = False  # the region's last row is known to be the screen's last
        self.filler = 0  # blank rows at the screen's top, put there to keep it so
        # those rows sit above the session's first line (the region was moved down from a
        # fresh terminal's top), not amid the conversation: a resize may leave them behind
        self.leading = False
        # blank rows known under the region's last row (None: not known); once resized, the
        # region is only asked where it is, never moved down again (`forget`)
        self.below: int | None = None
        self.moves = True

    def shrunk(self, app: Application[None], before: int, after: int) -> bool:
        """The region just got `before - after` rows shorter, erased below its new last row:
        the screen above moves down over them, until the first resize or Ctrl-L (`forget`).
        Whether it did (else the blank rows stay below the prompt); the cursor is then on the
        region's last row."""
        if not (self.at_bottom and self.moves) or after < 1 or after >= before:
            return False
        rows = app.output.get_size().rows
        app.output.write_raw(moved_top(before - after, "L", rows - 1, 0))
        self.leading = self.leading and self.filler > 0  # else lines went into scrollback
        self.filler += before - after
        return True

    def leave(self, app: Application[None]) -> None:
        """The blank rows kept at the screen's top go: what the shell prints next follows the
        conversation, and they never scroll into scrollback."""
        if self.filler:
            self.make_room(app, self.filler)

    def make_room(self, app: Application[None], rows: int) -> None:
        """`rows` new rows are about to be written under the region's top: the blank rows at
        the screen's top go first (deleted, the screen moved up), so nothing blank scrolls off
        into scrollback. The cursor stays where it was in the region."""
        last = app.renderer._last_screen
        taken = min(rows, self.filler)
        if taken < 1 or last is None or not self.at_bottom:
            return
        cursor, size = app.renderer._cursor_pos, app.output.get_size()
        row = size.rows - last.height + cursor.y - taken
        app.output.write_raw(moved_top(taken, "M", row, cursor.x))
        self.filler -= taken

    def forget(self) -> None:
        """A resize: where the rows are now is the terminal's re-wrap; asked again once a
        frame is drawn at the new size, to learn the blank rows under the region. It is not
        moved down over them: blank rows inserted at the screen's top sit between the lines
        a re-wrap pushed into scrollback and those still on screen, and the next narrowing
        pushes them there too (tmux keeps the screen's last rows and the cursor's row)."""
        self.filler = 0
        if self.at_bottom or not self.moves:
            self.at_bottom = self.anchored = self.moves = False

    def cleared(self) -> None:
        """The screen was cleared (Ctrl-L) and the region is drawn anew at its top: nothing it
        knew of the rows around the region holds. It stays there, as a shell's prompt would,
        and is only asked where it is, as after a resize (`forget`)."""
        self.filler, self.below = 0, None
        self.at_bottom, self.moves = False, False
        self.anchored = not terminal_reflows()

    def after_render(self, app: Application[None]) -> None:
        """Ask where the cursor is, once a frame is on screen and nothing else is asked."""
        if self.anchored or self.asked is not None or not app.output.responds_to_cpr:
            return
        renderer = app.renderer
        self.deferred = self.others_pending()  # asked again once that answer is in (`retry`)
        if renderer._last_screen is None or app._running_in_terminal or self.deferred:
            return
        if renderer._last_size != app.output.get_size():  # a re-lay waits: nothing drawn
            return
        self.asked = Asked(app.render_counter, renderer._cursor_pos.y)
        self.ask()

    def retry(self, app: Application[None]) -> None:
        """An answer arrived: a question put off for it is asked now (no frame may follow)."""
        if self.deferred:
            self.after_render(app)

    def on_report(self, row: int) -> None:
        asked, self.asked = self.asked, None
        renderer, output = self.app.renderer, self.app.output
        last = renderer._last_screen
        if asked is None or self.anchored or last is None:
            return
        moved = renderer._last_size != output.get_size()  # a re-lay to come
        if self.app.render_counter != asked.frame or self.app._running_in_terminal or moved:
            self.app.invalidate()  # the region may have moved since: ask after the next frame
            return
        cursor = renderer._cursor_pos
        top = row - 1 - asked.cursor_row
        rows = output.get_size().rows
        if not self.moves:  # resized: where it is, asked again after frames until at the bottom
            self.below = max(rows - top - last.height, 0)
            self.anchored = self.at_bottom = self.below == 0
            return
        output.write_raw(anchor_bytes(top, last.height, rows, (cursor.y, cursor.x)))
        output.flush()
        self.filler += max(rows - top - last.height, 0)
        self.leading = True
        self.anchored = self.at_bottom = True
        self.below = 0


class Gap:
    """Blank rows at the top of the bottom region: the rows a re-lay frees, kept in the region.

    A change of columns re-wraps the region's rows (tmux: each row wider than the new width is
    split), which pushes the screen's top rows into scrollback; re-laid at the new width, the
    region takes fewer rows than its re-wrapped copy did (ui/screen/commits.py: `relay`). Those
    rows were left blank above it, between the conversation and the region, and the next commit
    was written under them: a blank run inside the conversation in scrollback (35 rows after 140
    -> 100 -> 80 -> 140 columns mid-turn). While a turn runs they are the region's own rows
    instead, at its top: a commit is written into them (the conversation goes on right under its
    last line), the live area grows into them, and the next re-lay erases them with the region.
    A second narrowing before commits fill them re-wraps the region's rows again; when that
    adds more rows than the conversation has on screen above them, tmux pushes the excess of
    these blank rows into scrollback (13 of 19 after 140 -> 100 -> 80 columns early in a reply),
    and the session is written again into a cleared scrollback (ui/screen/commits.py: `_over`).
    Kept anywhere else on the screen, the rows pushed would be the live area's own (a piece of
    the panel) or the same blank rows sooner. Between turns no commit comes to fill them:
    kept, they went into scrollback with each narrowing of a series, and the panel's top after
    them (tmux at 140x45, ten idle changes of columns); there they stay above the region, part
    under it as far as a halving still fits (ui/screen/commits.py: `_down`)."""

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

    def hold(self, app: Application[None], turn: bool, resized: bool) -> None:
        """Before each frame: after a resize (`resized`) the region keeps the rows it would
        give up while a `turn` runs, blank at its top, for the next commits. Moved down over
        them instead (`BottomAnchor.shrunk`), it would leave blank rows at
        the screen's top that the next narrowing pushes into scrollback amid the conversation,
        and that split the line they are inserted under when it is wider than the screen.
        Between turns they go: the region ends higher, blank rows under it."""
        renderer = app.renderer
        last = renderer._last_screen
        if not turn:
            self.floor = 0
        elif resized and last is not None and renderer._last_size == app.output.get_size():
            self.floor = max(self.floor, last.height)

    def took(self, rows: int) -> int:
        """A commit of `rows` rows is written into the gap's rows: how many of them it fills."""
        filled = min(rows, self.rows)
        self.floor = max(self.floor - rows, 0) if self.floor else 0
        self.rows -= filled
        return filled

    def reset(self) -> None:
        self.floor = self.rows = 0
