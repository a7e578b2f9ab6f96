"""A markdown reply full of links, in colour, as the real `agent chat` writes it (issue 37):
every byte the program writes parses as text or a whole escape sequence, and no frame shows a
hyperlink's insides (`8;id=…`, a lone `]8;`) — through column changes mid-reply. Where the
terminal is not known to draw hyperlinks a link reads `text (url)`; where it is, the scrollback
gets whole OSC 8 links and the live area (prompt-toolkit cannot draw them) their text only.
The same under tmux, sampled with `capture-pane` while it streams."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pexpect
import pytest

from tests.e2e.escape_scan import leaks, scan
from tests.e2e.pty_screen import ChatTerm
from tests.e2e.test_chat_resize_tmux import Tmux
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

END = b"\x1b[?2026l"
ITEMS = 40
REPLY = "## Links\n\n" + "\n\n".join(
    f"- item {n}: see [the docs {n}](https://example.com/docs/{n}) and <https://x.org/{n}>,"
    f" **bold** `code` LINE{n:02d}"
    for n in range(1, ITEMS + 1)
)
WIDTHS = (100, 80, 120, 90, 140)


def frames(term: ChatTerm, resize_every: int) -> tuple[list[str], bytes]:
    """The screen after each synchronized frame until the reply is over, resizing the terminal
    every `resize_every` frames; and every byte read."""
    screens: list[str] = []
    pending = raw = b""
    widths = iter(WIDTHS)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            data = term.child.read_nonblocking(65536, timeout=0.05)
        except pexpect.TIMEOUT:
            if screens and f"LINE{ITEMS}" in screens[-1] and "working…" not in screens[-1]:
                return screens, raw
            continue
        raw += data
        *whole, pending = (pending + data).split(END)
        for frame in whole:
            term.stream.feed(frame + END)
            screens.append(term.text())
            if len(screens) % resize_every == 0 and (columns := next(widths, None)):
                term.resize(columns, 24)
    raise AssertionError(f"the reply never ended; the screen shows:\n{term.text()}")


@pytest.mark.parametrize("links", ["0", "1"], ids=["spelled-out", "hyperlinks"])
def test_every_byte_of_a_linked_reply_is_a_whole_sequence(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, links: str
):
    fake_model.script.text(REPLY, chunks=200, pace=0.03)
    env = {k: v for k, v in fake_env.items() if k not in ("NO_COLOR", "TMUX")}
    term = ChatTerm({**env, "AGENT_HYPERLINKS": links}, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("links please")
        screens, raw = frames(term, resize_every=12)
    finally:
        term.close()
    assert len(screens) >= 50, f"only {len(screens)} frames"
    text, broken = scan(raw.decode(errors="replace"))
    assert broken == [], broken[:5]
    assert leaks(text) == []
    for n, screen in enumerate(screens):
        assert leaks(screen) == [], f"frame {n}:\n{screen}"
    osc8 = raw.count(b"\x1b]8;id=")
    if links == "1":
        assert osc8 >= ITEMS  # the committed items carry real links
    else:
        assert osc8 == 0
        assert "the docs 40 (https://example.com/docs/40)" in screens[-1]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_tmux_frames_of_a_linked_reply_show_no_escape_text(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text(REPLY, chunks=200, pace=0.04)
    tmux = Tmux(tmp_path / "tmux.sock", fake_env, tmp_path, (140, 45))
    samples: list[str] = []
    try:
        wait_until(lambda: "you>" in tmux.screen(), timeout=30, what="the prompt")
        tmux.run("send-keys", "links please", "Enter")
        widths = iter(WIDTHS * 2)
        deadline = time.monotonic() + 60
        while not samples or "working" in samples[-1] or f"LINE{ITEMS}" not in samples[-1]:
            assert time.monotonic() < deadline, f"the reply never ended:\n{samples[-1:]}"
            time.sleep(0.05)
            samples.append(tmux.screen())
            if len(samples) % 10 == 0 and (columns := next(widths, None)):
                tmux.run("resize-window", "-x", str(columns), "-y", "45")
        samples.append(tmux.scrollback())
    finally:
        tmux.close()
    assert len(samples) >= 50, f"only {len(samples)} samples"
    for n, screen in enumerate(samples):
        assert leaks(screen) == [], f"sample {n}:\n{screen}"
    assert "(https://example.com/docs/1)" in samples[-1]  # tmux: spelled out
