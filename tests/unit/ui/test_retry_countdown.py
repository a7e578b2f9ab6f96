"""The chat's wait before a retry counts down (a rate limit may ask minutes), and what streamed
of a reply gone silent is dropped when it is asked again (issue 52)."""

from __future__ import annotations

from agent_cli.core.events import Retrying, TextDelta
from agent_cli.ui.turn import TurnView


def test_the_wait_counts_down_then_the_spinner_returns():
    clock = [100.0]
    view = TurnView(width=100, color=False, now=lambda: clock[0])
    view.begin()
    view.feed(Retrying(reason="429 rate limit", delay_s=20, attempt=1, attempts=4))
    assert "429 rate limit: retrying in 20 s · Esc stops" in view.live(100)
    clock[0] += 15
    assert "retrying in 5 s" in view.live(100)
    clock[0] += 5
    assert "thinking…" in view.live(100)
    assert "retrying" not in view.live(100)


def test_a_silent_reply_is_dropped_when_asked_again():
    view = TurnView(width=100, color=False)
    view.begin()
    view.feed(TextDelta(text="half a sent"))
    view.feed(Retrying(reason="stream silent for 120 s", delay_s=0, attempt=1, attempts=4))
    assert "half a sent" not in view.live(100)
    view.feed(TextDelta(text="Whole answer."))
    assert view.text == "Whole answer."
