"""The status bar on a narrow screen leaves whole parts out, least needed first."""

from __future__ import annotations

from agent_cli.ui.screen.status_fit import fit_parts

BAR = [
    ("working… Ctrl-C stops", 9),
    ("2 queued", 8),
    ("claude-sonnet-4-6", 3),
    ("mode default", 7),
    ("ctx 12%", 5),
    ("$0.037", 6),
    ("mcp 1/1", 4),
]


def test_a_wide_screen_shows_every_part_in_order() -> None:
    text = fit_parts(BAR, 140)
    assert text == (
        "working… Ctrl-C stops  ·  2 queued  ·  claude-sonnet-4-6  ·  mode default  ·  ctx 12%"
        "  ·  $0.037  ·  mcp 1/1"
    )


def test_a_narrower_screen_drops_the_model_first_and_never_cuts_the_cost() -> None:
    text = fit_parts(BAR, 90)
    assert text == (
        "working… Ctrl-C stops  ·  2 queued  ·  mode default  ·  ctx 12%  ·  $0.037  ·  mcp 1/1"
    )


def test_80_columns_drop_the_mcp_count_next() -> None:
    text = fit_parts(BAR, 79)
    assert text == "working… Ctrl-C stops  ·  2 queued  ·  mode default  ·  ctx 12%  ·  $0.037"


def test_a_very_narrow_screen_keeps_what_the_user_acts_on() -> None:
    text = fit_parts(BAR, 40)
    assert text == "working… Ctrl-C stops  ·  2 queued"


def test_empty_parts_take_no_room() -> None:
    assert fit_parts([("", 9), ("claude-sonnet-4-6", 3), ("mode plan", 7)], 80) == (
        "claude-sonnet-4-6  ·  mode plan"
    )
