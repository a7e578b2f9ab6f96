"""Regenerate docs/cost-80.svg: `/cost` in the real `agent chat` at 80x24 in a pseudo-terminal
against the fake model server (its simulated prompt cache), in colour, with `--max-cost 0.1`: a
turn that delegates to a subagent, then `/cost`.

    python docs/make_cost_screenshot.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))
sys.path.insert(0, str(DOCS))

from make_interaction_screenshots import COLUMNS, LINES, env_for, save  # noqa: E402

from tests.e2e.pty_screen import ChatTerm  # noqa: E402
from tests.fake_model import FakeAnthropic  # noqa: E402
from tests.fake_model.routing import system_contains  # noqa: E402

RETRY_PY = "def backoff(attempt):\n    return 0.5 * 2 ** attempt\n"


def cost() -> None:
    with tempfile.TemporaryDirectory() as ws, FakeAnthropic() as server:
        (Path(ws) / "retry.py").write_text(RETRY_PY)
        server.script.tool_use("task", description="find the back-off", prompt="Where is it?")
        server.script.text("The back-off doubles from 0.5 s in retry.py.")
        child = server.route(system_contains("You are a subagent"))
        child.tool_use("read_file", path="retry.py")
        child.tool_use("submit_note", conclusion="backoff() in retry.py doubles from 0.5 s")
        term = ChatTerm(env_for(server, ws), Path(ws), "--max-cost", "0.1",
                        columns=COLUMNS, lines=LINES)
        try:
            term.wait_for("you>")
            term.type("how does the retry back off?")
            term.wait_for(lambda t: "doubles from 0.5 s in retry.py" in t and "working" not in t)
            term.type("/cost")
            term.wait_for(lambda t: "Cache misses" in t and t.rstrip().endswith("you>"))
            save(term, "cost-80.svg", "agent chat: /cost at 80 columns")
        finally:
            term.close()


if __name__ == "__main__":
    cost()
