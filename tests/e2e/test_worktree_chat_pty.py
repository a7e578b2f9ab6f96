"""An isolated subagent's diff in `agent chat`: the approval view shows the diff with apply /
keep the worktree / discard, at 80 and 140 columns; each answer does what it says."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.helpers import run_agent
from tests.e2e.pty_screen import ChatTerm
from tests.e2e.test_worktree_subagents import child_edits, task
from tests.e2e.worktree_support import agent_branches, make_repo, worktrees
from tests.fake_model import FakeAnthropic

OPTIONS = [
    "1 apply it to your checkout",
    "2 keep the worktree (later: agent worktrees merge)",
    "3 discard it and remove the worktree",
]


@pytest.mark.parametrize(("columns", "key"), [(80, "1"), (140, "2"), (80, "3")])
def test_the_diff_is_asked_for_in_the_approval_view(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, columns: int, key: str
) -> None:
    repo = make_repo(tmp_path / "repo")
    fake_model.script.tool_uses(task("SOLO")).text("Back from the subagent.")
    child_edits(fake_model, "SOLO", "two", "2")
    term = ChatTerm(fake_env, repo, columns=columns)
    try:
        term.wait_for("you>")
        term.type("delegate it")
        screen = term.wait_for("Esc / Ctrl-C: keep it, and stop the turn", timeout=60)
        flat = screen.replace("\n", "")
        assert "Apply the diff of subagent 'edit SOLO' (a.txt) to your checkout?" in flat
        assert "-two" in screen
        assert "+2" in screen
        for option in OPTIONS:
            assert option in flat
        assert (repo / "a.txt").read_text() == "one\ntwo\nthree\n"  # asked before applying
        term.send(key)
        term.wait_for("Back from the subagent.", timeout=60)
    finally:
        term.close()
    applied = (repo / "a.txt").read_text() == "one\n2\nthree\n"
    assert applied == (key == "1")
    kept = worktrees(fake_env, repo)
    assert len(kept) == (1 if key == "2" else 0)
    assert len(agent_branches(repo)) == len(kept)
    if key == "2":
        shown = run_agent(fake_env, repo, "worktrees", "diff", kept[0]["name"]).stdout
        assert "+2" in shown
