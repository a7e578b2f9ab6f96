"""Width probes (ui/screen/width_probe.py): which answers are whose, when the screen is trusted."""

from __future__ import annotations

import asyncio
import time

import pytest
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput

from agent_cli.ui.screen.live import ChatScreen
from agent_cli.ui.screen.width_probe import (
    ANCHOR,
    LOST_S,
    NOTHING,
    PROBE,
    RENDERER,
    RegionRows,
    WidthProbes,
)
from tests.unit.ui.screen_harness import FakeTty, framed_on, questions, run_screen
from tests.waiting import until


def answering() -> WidthProbes:
    probes = WidthProbes()
    probes.asked(RENDERER)
    assert probes.answer(1) == RENDERER  # prompt-toolkit's first question, and proof of answers
    return probes


def test_nothing_is_probed_until_the_terminal_has_answered_a_question():
    probes = WidthProbes()
    assert probes.probe(80) == ""
    assert not probes.owed
    assert probes.trusted()
    probes.asked(RENDERER)
    probes.answer(5)
    assert probes.probe(80) == PROBE


def test_answers_go_to_their_askers_in_the_order_asked():
    probes = answering()
    probes.probe(80)
    probes.asked(ANCHOR)
    probes.asked(RENDERER)
    probes.probe(80)
    assert probes.owes(RENDERER)
    assert probes.owes(ANCHOR)
    # a probe's answer is nobody else's; the others reach their askers, in between as asked
    answers = [probes.answer(80), probes.answer(3), probes.answer(1), probes.answer(80)]
    assert answers == [None, ANCHOR, RENDERER, None]
    assert not probes.owes(RENDERER)
    assert probes.trusted()


def test_a_frame_drawn_at_another_width_makes_the_screen_untrusted():
    probes = answering()
    probes.probe(100)
    assert not probes.trusted()  # unanswered: it may have been drawn anywhere
    probes.answer(80)  # the terminal was 80 columns wide when it drew a frame laid out for 100
    assert not probes.trusted()
    probes.relaid()
    assert probes.trusted()


def test_answers_to_frames_before_a_rewrite_no_longer_count():
    probes = answering()
    probes.probe(100)
    probes.relaid()  # everything those frames drew was erased
    assert probes.trusted()
    probes.probe(80)
    assert probes.answer(80) is None  # the old frame's answer, at a width it was not laid for
    assert probes.answer(80) is None
    assert probes.trusted()


def test_an_answer_that_never_comes_stops_counting(monkeypatch: pytest.MonkeyPatch):
    probes = answering()
    probes.probe(80)
    assert not probes.trusted()
    later = time.monotonic() + LOST_S + 1
    monkeypatch.setattr(time, "monotonic", lambda: later)
    assert probes.trusted()
    assert not probes.owed


def test_an_answer_nobody_asked_for_goes_on():
    probes = answering()
    assert probes.answer(7) == RENDERER


def resized_after(answer_width: int) -> tuple[str, str]:
    """A screen 80 columns wide commits a block; its width probes are answered as if the
    terminal had `answer_width` columns; then the screen is resized to 60 columns. What it
    wrote before the resize, and after."""
    tty, size = FakeTty(), [Size(rows=24, columns=80)]
    output = framed_on(tty, lambda: size[0])
    cut: list[int] = []

    async def drive(screen: ChatScreen, pipe: PipeInput) -> None:
        answered = 0

        def answer_all() -> None:
            nonlocal answered
            for probe in questions(tty.getvalue())[answered:]:
                pipe.send_text(f"\x1b[24;{answer_width}R" if probe else "\x1b[24;1R")
                answered += 1

        await until(lambda: questions(tty.getvalue()), 5, "the first question")
        answer_all()
        await until(lambda: output.probes.enabled, 5, "the answer")
        screen.commit("a committed block")
        await until(lambda: any(questions(tty.getvalue())[answered:]), 5, "a probe")
        answer_all()
        await until(lambda: not output.probes.owed, 5, "the answers")
        cut.append(len(tty.getvalue()))
        size[0] = Size(rows=24, columns=60)
        screen.app._on_resize()
        await until(lambda: screen.app.render_counter > 0, 5, "a frame")

    run_screen(output, drive)
    written = tty.getvalue()
    return written[: cut[0]], written[cut[0] :]


SCROLLBACK_CLEARED = "\x1b[3J"


def test_a_frame_drawn_at_another_width_has_what_was_committed_since_written_again(
    monkeypatch: pytest.MonkeyPatch,
):
    """The commit may have landed anywhere: the region is erased from where the last frame drawn
    at its width left it, and the commit written once more there; the rest stays."""
    monkeypatch.setenv("AGENT_REFLOW", "0")  # rows cut, not re-wrapped: only the probe tells
    before, after = resized_after(answer_width=60)  # the terminal had moved on already
    assert "a committed block" in before
    assert SCROLLBACK_CLEARED not in after
    assert "\x1b[2J" not in after
    assert after.count("a committed block") == 1  # written again, once


def test_frames_drawn_where_they_were_laid_out_are_re_laid_in_place(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv("AGENT_REFLOW", "0")
    _, after = resized_after(answer_width=80)
    assert SCROLLBACK_CLEARED not in after  # the user's own scrollback stays
    assert "a committed block" not in after  # settled: not written twice
    assert "\x1b[A\r\x1b[K" in after  # the region (status bar, prompt) erased where it was


def test_a_terminal_that_re_wraps_rows_has_the_region_erased_from_its_new_top(
    monkeypatch: pytest.MonkeyPatch,
):
    """At 60 columns the 80-column status bar takes two rows above the prompt: the erase starts
    two rows up, and nothing committed is written again."""
    monkeypatch.setenv("AGENT_REFLOW", "1")
    _, after = resized_after(answer_width=80)  # every frame drawn where it was laid out
    assert SCROLLBACK_CLEARED not in after
    assert "a committed block" not in after
    assert "\x1b[2A\r\x1b[K" in after


def test_the_reference_is_the_last_frame_drawn_where_it_was_laid_out():
    probes = answering()
    first, second = RegionRows((80, 5), (1, 5)), RegionRows((80, 80, 5), (2, 5))
    probes.probe(80, first)
    probes.committed("one")
    probes.probe(80, second)
    probes.committed("two")
    probes.probe(80, RegionRows((9,), (0, 0)))
    probes.answer(80)
    assert probes.since_reference() == (first, ["one", "two"])
    probes.answer(80)
    assert probes.since_reference() == (second, ["two"])
    probes.answer(60)  # drawn after the terminal narrowed: the reference stays
    assert probes.drawn_elsewhere
    assert probes.since_reference() == (second, ["two"])
    probes.relaid()
    assert probes.since_reference() == (NOTHING, [])


def on_a_slow_terminal(hand_over: str) -> tuple[list[bool], int, list[tuple[int, int]]]:
    """A screen whose terminal answers each question 50 ms late commits a block, then hands
    the terminal over (`exit`, or `run_in_terminal` for another program) with the frame's probe
    still unanswered. The questions it wrote, the answers it took, and (questions, answers) at
    the moment the other program had the terminal."""
    tty = FakeTty()
    output = framed_on(tty)
    taken: list[int] = []
    handed: list[tuple[int, int]] = []
    terminal: list[asyncio.Future[None]] = []  # outlives `drive`, until asyncio.run cancels it

    async def slow_terminal(pipe: PipeInput) -> None:
        answered = 0
        while True:
            asked = questions(tty.getvalue())
            for probe in asked[answered:]:
                await asyncio.sleep(0.05)
                pipe.send_text("\x1b[24;80R" if probe else "\x1b[24;1R")
            answered = len(asked)
            await asyncio.sleep(0.01)

    async def drive(screen: ChatScreen, pipe: PipeInput) -> None:
        route = screen.on_cursor_report

        def counted(row: int, column: int) -> None:
            taken.append(column)
            route(row, column)

        screen.on_cursor_report = counted  # type: ignore[method-assign]
        terminal.append(asyncio.ensure_future(slow_terminal(pipe)))  # the exit waits on it
        await until(lambda: output.probes.enabled, 5, "the first answer")
        screen.commit("a committed block")
        await until(lambda: any(questions(tty.getvalue())), 5, "a probe")
        await until(lambda: not screen.commits.unwritten, 5, "the commit")
        if hand_over == "run_in_terminal":
            await run_in_terminal(
                lambda: handed.append((len(questions(tty.getvalue())), len(taken)))
            )

    run_screen(output, drive)
    return questions(tty.getvalue()), len(taken), handed


def test_the_screen_takes_every_answer_before_it_exits():
    """An answer read after the exit would be typed into the shell: the screen waits for it."""
    asked, taken, _ = on_a_slow_terminal("exit")
    assert any(asked), "no frame was probed"
    assert taken == len(asked)


def test_no_question_is_open_while_another_program_has_the_terminal():
    """prompt-toolkit waits for the answers, then erases the region: that erase asks nothing."""
    asked, _, handed = on_a_slow_terminal("run_in_terminal")
    assert any(asked), "no frame was probed"
    ((written, taken),) = handed
    assert taken == written


def test_frames_drawn_at_a_width_the_terminal_left_again_lose_track():
    """140 -> 100 -> 140 within tmux's 250 ms: a frame drawn at 100 was re-wrapped twice."""
    probes = answering()
    probes.probe(140)
    probes.answer(100)
    assert not probes.lost_track(100)  # one change: counted from the reference
    assert probes.lost_track(140)
    probes.relaid()
    assert not probes.lost_track(140)
