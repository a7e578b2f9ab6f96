"""Regenerate docs/plan-dialog-80.svg and docs/ask-user-80.svg: the real `agent chat` at 80x24
in a pseudo-terminal against the fake model server, in colour (drawn as
make_interaction_screenshots.py draws its own).

    python docs/make_dialog_screenshots.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS.parent), str(DOCS)]

from make_interaction_screenshots import COLUMNS, LINES, env_for, save  # noqa: E402

from tests.e2e.pty_screen import ChatTerm  # noqa: E402
from tests.fake_model import FakeAnthropic  # noqa: E402

PLAN = """# Cap the retry back-off

1. `retry.py`: `backoff()` returns `min(0.5 * 2 ** attempt, 8.0)`.
2. `call()`: re-raise the last `ConnectionError` instead of calling `fn` a fourth time.
3. `tests/test_retry.py`: a test each for the cap and for the re-raise.
4. Run `pytest tests/test_retry.py -q`; all pass.

## Not changed

- the number of attempts (3) and the first delay (0.5 s)
- callers of `call()`: the signature stays
"""
QUESTIONS = [
    {"question": "Where should the cap come from?", "header": "Cap", "options": [
        {"label": "a constant", "description": "MAX_DELAY = 8.0 in retry.py"},
        {"label": "settings", "description": "a retry.max_delay setting"}]},
    {"question": "Which checks should run after the change?", "header": "Checks",
     "multi_select": True, "options": [
        {"label": "unit tests"}, {"label": "type check", "description": "mypy --strict"},
        {"label": "lint"}]},
]


def plan_dialog() -> None:
    with tempfile.TemporaryDirectory() as ws, FakeAnthropic() as server:
        (Path(ws) / "retry.py").write_text("def backoff(attempt):\n    return 0.5 * 2 ** attempt\n")
        server.script.tool_use("read_file", path="retry.py")
        server.script.tool_use("present_plan", plan=PLAN)
        term = ChatTerm(env_for(server, ws), Path(ws), "--permission-mode", "plan",
                        columns=COLUMNS, lines=LINES)
        try:
            term.wait_for("you>")
            term.type("cap the back-off in retry.py at 8 s")
            term.wait_for("Esc / Ctrl-C stops the turn", timeout=90)
            save(term, "plan-dialog-80.svg", "agent chat: a plan presented at 80 columns")
        finally:
            term.close()


def ask_user() -> None:
    with tempfile.TemporaryDirectory() as ws, FakeAnthropic() as server:
        server.script.tool_use("ask_user", questions=QUESTIONS)
        term = ChatTerm(env_for(server, ws), Path(ws), columns=COLUMNS, lines=LINES)
        try:
            term.wait_for("you>")
            term.type("cap the back-off in retry.py")
            term.wait_for("(1/2)", timeout=90)
            term.send("1")
            term.wait_for("(2/2)")
            term.send("1\x1b[B\x1b[B ")  # tick unit tests and lint
            term.wait_for("[x] 3. lint")
            save(term, "ask-user-80.svg", "agent chat: ask_user's questions at 80 columns")
        finally:
            term.close()


def main() -> None:
    plan_dialog()
    ask_user()


if __name__ == "__main__":
    main()
