"""The byte scanner the screen tests trust, and the hyperlink rules it checks."""

from __future__ import annotations

import pytest

from agent_cli.ui.render import escapes
from agent_cli.ui.render.escapes import links_known, terminal_links, without_osc
from agent_cli.ui.render.render import markdown
from tests.e2e.escape_scan import leaks, scan

LINK = "\x1b]8;id=1;https://example.com\x1b\\link\x1b]8;;\x1b\\"


def test_whole_sequences_are_read_and_broken_ones_found():
    text, broken = scan(f"a\x1b[1;31mb\x1b[0m {LINK} \x1b7\x1b[?2026h")
    assert (text, broken) == ("ab link ", [])
    assert scan("x\x1b]8;;https://a")[1] == ["\x1b]8;;https://a"]  # never terminated
    assert scan("x\x1b[12")[1] == ["\x1b[12"]
    assert leaks("see 8;id=1;https://example.comlink8;;") != []
    assert leaks(scan(LINK)[0]) == []


def test_the_live_area_drops_oscs_and_keeps_their_text():
    assert without_osc(f"a {LINK} b") == "a link b"
    assert without_osc("\x1b[1mbold\x1b[0m") == "\x1b[1mbold\x1b[0m"


def test_links_are_hyperlinks_only_where_the_terminal_draws_them():
    assert links_known({"TERM_PROGRAM": "iTerm.app"})
    assert links_known({"VTE_VERSION": "7200", "TERM": "xterm-256color"})
    assert not links_known({"VTE_VERSION": "4800"})
    assert not links_known({"TERM_PROGRAM": "iTerm.app", "TMUX": "/tmp/s,1,0"})
    assert not links_known({"TERM": "xterm-256color"})
    assert links_known({"AGENT_HYPERLINKS": "1", "TMUX": "x"})
    assert not links_known({"AGENT_HYPERLINKS": "0", "TERM_PROGRAM": "WezTerm"})


def test_without_hyperlinks_a_link_reads_text_then_url_and_an_autolink_its_url(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv("AGENT_HYPERLINKS", "0")
    terminal_links.cache_clear()
    monkeypatch.setattr(escapes, "terminal_links", terminal_links)  # cleared again after
    shown = markdown("see [the docs](https://example.com/a) or <https://x.org>.", 80, False)
    assert shown == "see the docs (https://example.com/a) or https://x.org."
    terminal_links.cache_clear()


def test_escapes_in_the_models_text_are_not_written():
    shown = markdown("a \x1b]8;;https://evil\x1b\\b\x1b[2J c", 80, True)
    assert scan(shown)[1] == []
    assert "\x1b]" not in shown
    assert "\x1b[2J" not in shown
