"""Regenerate docs/approval-80.svg and docs/tool-preview-80.svg: the real `agent chat` at 80x24
in a pseudo-terminal against the fake model server, in colour; the terminal's screen (pyte keeps
each cell's character, colour and weight) is drawn as SVG by rich.

    python docs/make_interaction_screenshots.py
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))

from rich.console import Console  # noqa: E402
from rich.style import Style  # noqa: E402
from rich.text import Text  # noqa: E402

from tests.e2e.pty_screen import ChatTerm  # noqa: E402
from tests.fake_model import FakeAnthropic  # noqa: E402

COLUMNS, LINES = 80, 24
RETRY_PY = '''import time


def backoff(attempt):
    return 0.5 * 2 ** attempt


def call(fn, attempts=3):
    for attempt in range(attempts):
        try:
            return fn()
        except ConnectionError:
            time.sleep(backoff(attempt))
    return fn()
'''
TESTS_PY = (  # stands in for a test run: what it prints is what the preview shows
    "print('tests/test_retry.py ....F.')\n"
    "print('FAILED tests/test_retry.py::test_gives_up - ConnectionError')\n"
    "print('1 failed, 5 passed in 0.21s')\n"
    "raise SystemExit(1)\n"
)


def env_for(server: FakeAnthropic, home: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "ANTHROPIC_AUTH_TOKEN")}
    env.update(ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="sk-test-" + "k" * 32,
               HOME=home, TERM="xterm-256color")
    return env


def _color(name: str) -> str | None:
    if name == "default":
        return None
    if len(name) == 6 and all(c in "0123456789abcdef" for c in name):
        return "#" + name
    name = name.replace("brown", "yellow")
    return "bright_" + name.removeprefix("bright") if name.startswith("bright") else name


def screen_text(term: ChatTerm) -> Text:
    """The screen as rich Text: every cell with its colour, weight and inversion."""
    out = Text()
    for y in range(term.screen.lines):
        row = term.screen.buffer[y]
        for x in range(term.screen.columns):
            cell = row[x]
            style = Style(color=_color(cell.fg), bgcolor=_color(cell.bg), bold=cell.bold,
                          reverse=cell.reverse, underline=cell.underscore)
            out.append(cell.data or " ", style)
        out.append("\n")
    out.rstrip()
    return out


def save(term: ChatTerm, name: str, title: str) -> None:
    console = Console(record=True, width=COLUMNS, force_terminal=True, color_system="truecolor",
                      file=io.StringIO())  # recorded, not shown
    console.print(screen_text(term), end="")
    console.save_svg(str(DOCS / name), title=title)


def approval() -> None:
    with tempfile.TemporaryDirectory() as ws, FakeAnthropic() as server:
        (Path(ws) / "retry.py").write_text(RETRY_PY)
        server.script.tool_use("read_file", path="retry.py")
        server.script.tool_use("edit_file", path="retry.py",
                               old_string="    return 0.5 * 2 ** attempt",
                               new_string="    return min(0.5 * 2 ** attempt, 8.0)")
        server.script.text("Capped the back-off at 8 s.")
        term = ChatTerm(env_for(server, ws), Path(ws), columns=COLUMNS, lines=LINES)
        try:
            term.wait_for("you>")
            term.type("cap the back-off in retry.py at 8 s")
            term.wait_for("Esc / Ctrl-C: no, and stop the turn")
            save(term, "approval-80.svg", "agent chat: an edit approval at 80 columns")
        finally:
            term.close()


def tool_preview() -> None:
    with tempfile.TemporaryDirectory() as ws, FakeAnthropic() as server:
        (Path(ws) / "retry.py").write_text(RETRY_PY)
        (Path(ws) / "run_tests.py").write_text(TESTS_PY)
        server.script.tool_use("bash", command="python3 run_tests.py")
        server.script.tool_use("edit_file", path="retry.py", old_string="x", new_string="y")
        server.script.tool_use("grep", pattern="sleep", path=".")
        server.script.text("One test fails: `test_gives_up` expects the last error to be raised.")
        term = ChatTerm(env_for(server, ws), Path(ws), "--permission-mode", "bypass",
                        columns=COLUMNS, lines=LINES)
        try:
            term.wait_for("you>")
            term.type("run the retry tests")
            term.wait_for(lambda t: "expects the last error" in t and "✔ grep" in t
                          and "working…" not in t)
            save(term, "tool-preview-80.svg", "agent chat: tool previews at 80 columns")
        finally:
            term.close()


def main() -> None:
    approval()
    tool_preview()


if __name__ == "__main__":
    main()
