"""/copy's OSC 52 sequence: base64 of the UTF-8 text; inside tmux also wrapped for passthrough."""

from __future__ import annotations

import base64

from agent_cli.ui.input.terminal import osc52


def test_the_sequence_carries_the_text_in_base64():
    encoded = base64.b64encode("naïve ✓".encode()).decode()
    assert osc52("naïve ✓") == f"\x1b]52;c;{encoded}\x07"


def test_inside_tmux_it_is_also_wrapped_with_its_escapes_doubled():
    plain = osc52("x")
    assert osc52("x", tmux=True) == plain + "\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\"
