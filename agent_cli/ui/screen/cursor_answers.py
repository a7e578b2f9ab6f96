"""Who asks the terminal where its cursor is, and who gets each answer: prompt-toolkit's
renderer, the bottom anchor (ui/screen/anchor.py) and, on framed output, the width probe that ends
each frame (ui/screen/width_probe.py). Answers come in the order asked and carry no name, so the
framed output keeps one queue of who asked. Every question is owed an answer the way
prompt-toolkit's own are, so it waits for them before it gives the terminal back: an answer
that arrived after would be read by the shell as typed input.
Imports only prompt_toolkit: the screen is drawn before anything heavy is loaded."""

from __future__ import annotations

import asyncio
import contextlib

from prompt_toolkit.application import Application

from agent_cli.ui.screen.anchor import BottomAnchor
from agent_cli.ui.screen.frames import FramedOutput
from agent_cli.ui.screen.region_rows import region_of
from agent_cli.ui.screen.width_probe import ANCHOR, RENDERER


def anchor_asking(app: Application[None]) -> BottomAnchor:
    """The screen's bottom anchor, asking through the framed output's queue when there is one."""
    output, renderer = app.output, app.renderer
    if not isinstance(output, FramedOutput):
        return BottomAnchor(app, output.ask_for_cpr, lambda: renderer.waiting_for_cpr)
    framed = output

    def laid_out() -> int:
        return (renderer._last_size or framed.get_size()).columns

    def awaits_answer() -> None:
        with contextlib.suppress(RuntimeError):  # no loop: not running, nothing will wait
            renderer._waiting_for_cpr_futures.append(asyncio.get_running_loop().create_future())

    erase = renderer.erase

    def erase_unprobed(leave_alternate_screen: bool = True) -> None:
        framed.erasing = True  # the region is gone: a probe now would be answered too late
        try:
            erase(leave_alternate_screen)
        finally:
            framed.erasing = False

    framed.laid_out, framed.awaits_answer = laid_out, awaits_answer
    framed.region = lambda: region_of(renderer, laid_out())
    setattr(renderer, "erase", erase_unprobed)  # noqa: B010 - wrapped
    return BottomAnchor(app, framed.ask_for_anchor, lambda: framed.probes.owes(RENDERER))


def route_answer(app: Application[None], anchor: BottomAnchor, row: int, column: int) -> None:
    output = app.output
    asker = output.probes.answer(column) if isinstance(output, FramedOutput) else ANCHOR
    app.renderer.report_absolute_cursor_row(row)  # one answer less owed, whoever asked
    if asker == ANCHOR:  # unframed: the anchor takes it only if it is waiting for one
        anchor.on_report(row)
