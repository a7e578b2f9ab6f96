"""The ping's bytes: BEL and the escape each terminal understands, passed through tmux."""

from __future__ import annotations

from agent_cli.ui.ping import clean, ping_bytes


def test_the_escape_is_chosen_from_the_terminal():
    iterm = ping_bytes("turn done", {"TERM_PROGRAM": "iTerm.app"}, bell=True, notify=True)
    assert iterm == "\a\x1b]9;turn done\a"
    kitty = ping_bytes("turn done", {"TERM": "xterm-kitty"}, bell=False, notify=True)
    assert kitty == "\x1b]99;;turn done\x1b\\"
    vte = ping_bytes(
        "waiting", {"TERM": "xterm-256color", "VTE_VERSION": "7000"}, bell=False, notify=True
    )
    assert vte == "\x1b]777;notify;agent;waiting\a"
    unknown = ping_bytes("x", {"TERM": "xterm"}, bell=False, notify=True)
    assert unknown == "\x1b]9;x\a"


def test_inside_tmux_the_escape_is_passed_through_and_the_bell_stays_outside():
    env = {"TMUX": "/tmp/tmux-0/default,1,0", "TERM": "tmux-256color", "TERM_PROGRAM": "tmux"}
    out = ping_bytes("done", env, bell=True, notify=True)
    assert out == "\a\x1bPtmux;\x1b\x1b]9;done\a\x1b\\"


def test_each_part_turns_off_and_hostile_text_cannot_end_the_escape():
    assert ping_bytes("x", {}, bell=False, notify=False) == ""
    assert ping_bytes("x", {}, bell=True, notify=False) == "\a"
    assert clean("evil\x1b]0;title\a; rm -rf\nnext") == "evil]0title rm -rf next"
    assert len(clean("y" * 1000)) == 200
