"""Plan mode's own parts (issue 32): present_plan offered while the mode is plan, the mode an
approval goes back to, and the first message of a fresh context."""

from __future__ import annotations

from agent_cli.runtime.planning import FRESH_OPENING, fresh_start
from agent_cli.tools.present_plan import PlanModeTools


def test_present_plan_follows_the_mode():
    mode = ["default"]
    tools = PlanModeTools(lambda: mode[0])
    assert tools.offered() == []
    mode[0] = "plan"
    assert [t.name for t in tools.offered()] == ["present_plan"]


def test_a_fresh_start_holds_the_plan_the_request_and_the_files_read():
    (message,) = fresh_start("1. do it", "make it so", ["a.py", "pkg/b.py"])
    text = message["content"][0]["text"] if isinstance(message["content"], list) else ""
    text = text or str(message["content"])
    assert message["role"] == "user"
    assert text.startswith(FRESH_OPENING)
    assert "make it so" in text
    assert "1. do it" in text
    assert "- a.py\n- pkg/b.py" in text
