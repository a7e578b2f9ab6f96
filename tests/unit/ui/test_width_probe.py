"""Width probes (ui/width_probe.py): which answers are whose, and when the screen is trusted."""

from __future__ import annotations

import asyncio
import io
import time

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input

from agent_cli.ui.frames import FramedOutput
from agent_cli.ui.live import ChatScreen
from agent_cli.ui.reflow import CLEAR_ALL
from agent_cli.ui.width_probe import LOST_S, PROBE, WidthProbes
from tests.waiting import until


def answering() -> WidthProbes:
    probes = WidthProbes()
    probes.asked_elsewhere()
    assert probes.answer(1) is True  # prompt-toolkit's first question, and proof of answers
    return probes


def test_nothing_is_probed_until_the_terminal_has_answered_a_question():
    probes = WidthProbes()
    assert probes.probe(80) == ""
    assert not probes.owed
    assert probes.trusted()
    probes.asked_elsewhere()
    probes.answer(5)
    assert probes.probe(80) == PROBE


def test_answers_go_to_their_askers_in_the_order_asked():
    probes = answering()
    probes.probe(80)
    probes.asked_elsewhere()
    probes.probe(80)
    # a probe's answer is not passed on; the other question's is, though it came in between
    assert [probes.answer(80), probes.answer(3), probes.answer(80)] == [False, True, False]
    assert probes.trusted()


def test_a_frame_drawn_at_another_width_makes_the_screen_untrusted():
    probes = answering()
    probes.probe(100)
    assert not probes.trusted()  # unanswered: it may have been drawn anywhere
    probes.answer(80)  # the terminal was 80 columns wide when it drew a frame laid out for 100
    assert not probes.trusted()
    probes.written_again()
    assert probes.trusted()


def test_answers_to_frames_before_a_rewrite_no_longer_count():
    probes = answering()
    probes.probe(100)
    probes.written_again()  # everything those frames drew was cleared
    assert probes.trusted()
    probes.probe(80)
    assert probes.answer(80) is False  # the old frame's answer, at a width it was not laid for
    assert probes.answer(80) is False
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
    assert probes.answer(7) is True


class FakeTty(io.StringIO):
    def isatty(self) -> bool:  # prompt-toolkit asks a terminal for its cursor, not a file
        return True


def resized_after(answer_width: int) -> tuple[str, str]:
    """A screen 80 columns wide commits a block; its width probes are answered as if the
    terminal had `answer_width` columns; then the screen is resized to 60 columns. What it
    wrote before the resize, and after."""
    tty, size = FakeTty(), [Size(rows=24, columns=80)]
    output = FramedOutput(tty, lambda: size[0], term="xterm-256color")
    cut: list[int] = []

    async def main() -> None:
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=output):
            screen = ChatScreen(None)

            async def drive() -> None:
                try:
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
                finally:
                    screen.exit()

            started: list[asyncio.Future[None]] = []
            await screen.run(lambda: started.append(asyncio.ensure_future(
                asyncio.wait_for(drive(), 10))))
            started[0].result()

    asyncio.run(main())
    written = tty.getvalue()
    return written[:cut[0]], written[cut[0]:]


def questions(written: str) -> list[bool]:
    """Each cursor question in `written`, in order: whether it is a width probe."""
    return [written[:at].endswith(PROBE[:PROBE.index("\x1b[6n")])
            for at in range(len(written)) if written.startswith("\x1b[6n", at)]


def test_a_frame_drawn_at_another_width_has_the_resize_write_everything_again(
    monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("AGENT_REFLOW", "1")
    before, after = resized_after(answer_width=70)  # the terminal had moved on already
    assert "a committed block" in before
    assert CLEAR_ALL in after  # screen and scrollback cleared: nothing left of what it drew
    assert "a committed block" in after.split(CLEAR_ALL, 1)[1]  # then written again


def test_frames_drawn_where_they_were_laid_out_are_re_laid_in_place(
    monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("AGENT_REFLOW", "1")
    _, after = resized_after(answer_width=80)
    assert CLEAR_ALL not in after  # the user's own scrollback stays
    assert "a committed block" not in after  # settled: not written twice
    assert "\x1b[J" in after  # the region erased where the terminal reflowed it
