"""`agent chat` on real screen sizes (issue 14): a plan of 12 todos, three subagent notes and a
200-line markdown reply, at 80x24, 100x30, 140x45 and 60x20, with resizes mid-reply and idle.

The terminal is pyte with scrollback. After the turn, scrollback must hold each reply line once,
at most one copy of the panel and no line that is a prefix of a later one (the marks of a live
region the terminal scrolled away). Every frame the screen drew is read from the frame log
(AGENT_FRAME_LOG, the rows of its content): each must be shorter than the screen.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import first_user_contains

REPLY_LINES = 200
TODOS = [
    {
        "content": f"Step {n:02d} of the plan",
        "status": "completed" if n < 5 else "in_progress" if n == 5 else "pending",
        "active_form": f"Doing step {n:02d}",
    }
    for n in range(1, 13)
]
PANEL_HEADING = re.compile(r"todos \d+/12", re.IGNORECASE)


def reply_text() -> str:
    """50 blocks of 4 bullets, a heading before every fifth block: 200 numbered lines."""
    blocks = []
    for block in range(REPLY_LINES // 4):
        lines = [f"- L{4 * block + n + 1:03d} point {block}.{n} of the answer" for n in range(4)]
        if block % 5 == 0:
            lines.insert(0, f"## Part {block // 5 + 1} heading\n")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def script_turn(fake_model: FakeAnthropic, pace: float) -> None:
    for n in range(3):
        sub = fake_model.route(first_user_contains(f"PROBE-{n}"))
        sub.tool_use(
            "submit_note",
            conclusion=f"Finding number {n} of the subagent.",
            evidence=["a.py"],
            file_refs=[],
            open_issues=[],
            confidence="high",
        ).text("Note submitted.")
    main = fake_model.script
    main.tool_use("todo_write", todos=TODOS)
    for n in range(3):
        main.tool_use("task", description=f"probe {n}", prompt=f"PROBE-{n}: look into part {n}")
    main.text(reply_text(), chunks=120, pace=pace)


def frames(log: Path) -> list[tuple[int, int, int]]:
    if not log.exists():
        return []
    rows = [line.split() for line in log.read_text().splitlines()]
    return [(int(h), int(r), int(c)) for h, r, c in rows]


def redrawn_at(log: Path, columns: int) -> Callable[[str], bool]:
    return lambda _: any(f[2] == columns for f in frames(log)[-3:])


def check_scrollback(lines: list[str]) -> None:
    for n in range(1, REPLY_LINES + 1):
        hits = [line for line in lines if f"L{n:03d} " in line]
        assert len(hits) == 1, f"reply line L{n:03d} is in scrollback {len(hits)} times: {hits}"
    panels = [line for line in lines if PANEL_HEADING.search(line)]
    assert len(panels) <= 1, f"{len(panels)} copies of the panel: {panels}"
    # rules (a heading's underline, the panel's) differ in length by design: not partial lines
    filled = [line.strip() for line in lines if len(set(line.strip())) > 2]
    for i, line in enumerate(filled):
        later = next(
            (other for other in filled[i + 1 :] if other != line and other.startswith(line)), None
        )
        assert later is None, f"a partial line {line!r} before {later!r}"


def assert_prompt_and_status(term: ChatTerm) -> None:
    rows = [line.rstrip() for line in term.screen.display]
    prompt = max((n for n, line in enumerate(rows) if line.startswith("you>")), default=-1)
    assert prompt >= 1, "the prompt is on the top row"
    assert " · " in rows[prompt - 1], f"no status line above the prompt: {rows[prompt - 1]!r}"


def frame_complete(raw: bytes) -> bool:
    return raw.rfind(b"\x1b[?2026h") < raw.rfind(b"\x1b[?2026l")


def run_turn(term: ChatTerm, log: Path, rows: int, resizes: list[int] | None = None) -> int:
    """Send the prompt and sample the screen until the turn ends; the samples taken."""
    term.type("plan it and explain")
    pending = list(resizes or [])
    samples = 0
    redrawn_from = 0  # after a resize, the screen is whole again once a new frame is drawn
    term.wait_for(lambda t: "working…" in t, timeout=60)
    while True:
        term.pump()
        if not frame_complete(term.raw[redrawn_from:]):
            continue  # a terminal with synchronized output shows only whole frames
        text = term.text()
        samples += 1
        assert_prompt_and_status(term)
        done = f"L{REPLY_LINES:03d}" in text and "working…" not in text
        if pending and f"L{50 * (4 - len(pending)):03d}" in text:
            term.resize(pending.pop(0), rows)
            redrawn_from = len(term.raw)
        if done:
            return samples
        assert samples < 20_000, "the turn never ended"


@pytest.mark.parametrize(("columns", "rows"), [(80, 24), (100, 30), (140, 45), (60, 20)])
def test_a_long_turn_keeps_the_live_area_shorter_than_the_screen(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, columns: int, rows: int
):
    script_turn(fake_model, pace=0.02)
    log = tmp_path / "frames.log"
    env = {**fake_env, "AGENT_FRAME_LOG": str(log)}
    term = ChatTerm(
        env, tmp_path, "--permission-mode", "bypass", columns=columns, lines=rows, scrollback=True
    )
    try:
        term.wait_for("you>")
        before = len(frames(log))
        samples = run_turn(term, log, rows)
        term.wait_idle()
        drawn = frames(log)[before:]
        assert samples >= 20
        assert len(drawn) >= 20, f"only {len(drawn)} frames drawn during the turn"
        tall = [f for f in drawn if f[0] >= f[1]]
        assert not tall, f"frames as tall as the screen: {tall[:5]}"
        check_scrollback(term.scrollback())
    finally:
        term.close()


def test_resizes_mid_reply_and_idle_leave_nothing_partial(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    script_turn(fake_model, pace=0.02)
    log = tmp_path / "frames.log"
    env = {**fake_env, "AGENT_FRAME_LOG": str(log)}
    rows = 40
    term = ChatTerm(
        env, tmp_path, "--permission-mode", "bypass", columns=140, lines=rows, scrollback=True
    )
    try:
        term.wait_for("you>")
        run_turn(term, log, rows, resizes=[100, 80, 140])
        term.wait_idle()
        for columns in (100, 80, 140):
            term.resize(columns, rows)
            term.wait_for(redrawn_at(log, columns))
            term.wait_idle()
        assert {f[2] for f in frames(log)} >= {140, 100, 80}
        assert all(h < r for h, r, _ in frames(log))
        check_scrollback(term.scrollback())
    finally:
        term.close()


def test_a_30_line_paste_at_80x24_keeps_prompt_and_status_and_sends_every_line(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("Got the paste.")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    pasted = [f"pasted line {n:02d}" for n in range(1, 31)]
    try:
        term.wait_for("you>")
        term.send("\x1b[200~" + "\r\n".join(pasted) + "\x1b[201~")
        screen = term.wait_for("pasted line 30")
        assert_prompt_and_status(term)
        assert "Window too small" not in screen
        term.send("\r")
        term.wait_for("Got the paste.")
        (body,) = fake_model.bodies()
        assert body["messages"][0]["content"][0]["text"].split("\n") == pasted
    finally:
        term.close()
