"""Isolated subagents through the real CLI: each works in a worktree of its own made from the
parent's working tree; sibling diffs that overlap are named and neither is applied; a lone diff
is applied only with a mode that allows edits, else kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import run_agent
from tests.e2e.worktree_support import Seen, agent_branches, make_repo, worktrees
from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import Predicate, first_user_contains, system_contains

SUBAGENT = system_contains("You are a subagent")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def asked(text: str) -> Predicate:
    asks = first_user_contains(text)
    return lambda body: SUBAGENT(body) and asks(body)


def task(marker: str, isolation: bool = True) -> tuple[str, dict[str, Any]]:
    args: dict[str, Any] = {"description": f"edit {marker}", "prompt": f"Do {marker}."}
    return "task", ({**args, "isolation": "worktree"} if isolation else args)


def child_edits(fake_model: FakeAnthropic, marker: str, old: str, new: str) -> None:
    child = fake_model.route(asked(f"Do {marker}."))
    child.tool_use("read_file", path="a.txt")
    child.tool_use("edit_file", path="a.txt", old_string=old, new_string=new)
    child.tool_use(
        "submit_note",
        conclusion=f"{marker}: changed a.txt",
        evidence=[],
        file_refs=["a.txt"],
        confidence="high",
    )


def parent_results(fake_model: FakeAnthropic) -> list[str]:
    body = [b for b in fake_model.bodies() if not SUBAGENT(b)][-1]
    return [str(b["content"]) for b in body["messages"][-1]["content"]]


def test_overlapping_siblings_are_named_and_neither_applied(
    fake_model: FakeAnthropic, fake_env: dict[str, str], repo: Path
) -> None:
    before = Seen.of(repo)
    fake_model.script.tool_uses(task("ONE"), task("TWO")).text("both back")
    child_edits(fake_model, "ONE", "two", "TWO-by-one")
    child_edits(fake_model, "TWO", "two", "TWO-by-two")
    proc = run_agent(fake_env, repo, "run", "-p", "go", "--permission-mode", "accept-edits")
    assert proc.returncode == 0, proc.stderr
    assert Seen.of(repo) == before  # neither applied, not even half
    first, second = parent_results(fake_model)
    for result in (first, second):
        assert "NOT applied: it overlaps a sibling's: a.txt (lines 1-3)" in result
        assert "agent worktrees merge task-" in result
    kept = worktrees(fake_env, repo)
    assert len(kept) == 2
    assert all(row["files"] == ["a.txt"] for row in kept)


def test_separate_siblings_are_applied_with_accept_edits(
    fake_model: FakeAnthropic, fake_env: dict[str, str], repo: Path
) -> None:
    lines = "".join(f"line {n}\n" for n in range(1, 31))
    (repo / "a.txt").write_text(lines)  # uncommitted: the subagents start from it
    fake_model.script.tool_uses(task("TOP"), task("END")).text("both back")
    child_edits(fake_model, "TOP", "line 2\n", "line 2 (top)\n")
    child_edits(fake_model, "END", "line 29\n", "line 29 (end)\n")
    proc = run_agent(fake_env, repo, "run", "-p", "go", "--permission-mode", "accept-edits")
    assert proc.returncode == 0, proc.stderr
    text = (repo / "a.txt").read_text()
    assert "line 2 (top)\n" in text
    assert "line 29 (end)\n" in text
    assert all("Diff applied to the checkout: a.txt" in r for r in parent_results(fake_model))
    assert worktrees(fake_env, repo) == []
    assert agent_branches(repo) == []


def test_in_default_mode_the_diff_is_kept_not_applied(
    fake_model: FakeAnthropic, fake_env: dict[str, str], repo: Path
) -> None:
    before = Seen.of(repo)
    fake_model.script.tool_uses(task("SOLO")).text("back")
    child_edits(fake_model, "SOLO", "two", "2")
    proc = run_agent(fake_env, repo, "run", "-p", "go", "--permission-mode", "bypass")
    assert proc.returncode == 0, proc.stderr
    assert (repo / "a.txt").read_text() == "one\n2\nthree\n"  # bypass allows edits: applied
    fake_model.script.tool_uses(task("KEPT")).text("back")
    child_edits(fake_model, "KEPT", "one", "1")
    proc = run_agent(fake_env, repo, "run", "-p", "go")  # default mode: edits need a yes
    assert proc.returncode == 0, proc.stderr
    assert (repo / "a.txt").read_text() == "one\n2\nthree\n"
    (result,) = parent_results(fake_model)
    assert "Diff not applied" in result
    (row,) = worktrees(fake_env, repo)
    assert row["files"] == ["a.txt"]
    assert Seen.of(repo).head == before.head


def test_outside_a_repository_the_task_fails_plainly(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    fake_model.script.tool_uses(task("NOWHERE")).text("no repo")
    proc = run_agent(fake_env, tmp_path, "run", "-p", "go")
    assert proc.returncode == 0, proc.stderr
    (result,) = parent_results(fake_model)
    assert "isolation worktree:" in result
    assert "not inside a git repository" in result
