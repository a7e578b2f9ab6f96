"""Worktrees on a real git repository: the user's checkout untouched, the base resolved once,
a conflicting diff named and not applied, removal leaving no worktree or branch."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_cli.core.errors import UsageError
from agent_cli.ext.worktrees import worktree as wt
from agent_cli.ext.worktrees.git import repo_root


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    sh(root, "init", "-q", "-b", "main")
    sh(root, "config", "user.email", "t@example.com")
    sh(root, "config", "user.name", "t")
    (root / "a.txt").write_text("one\ntwo\nthree\n")
    sh(root, "add", "a.txt")
    sh(root, "commit", "-qm", "first")
    return root.resolve()


def test_outside_a_repository_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not inside a git repository"):
        repo_root(tmp_path)


def test_create_edit_merge_remove_leaves_the_checkout_alone(repo: Path) -> None:
    head, index = sh(repo, "rev-parse", "HEAD"), (repo / ".git" / "index").read_bytes()
    record = wt.create(repo, "fix-a")
    assert record.base == head.strip()
    assert record.branch == "agent/fix-a"
    Path(record.path, "a.txt").write_text("one\nTWO\nthree\n")
    Path(record.path, "new.txt").write_text("new\n")
    assert sh(repo, "rev-parse", "HEAD") == head
    assert (repo / ".git" / "index").read_bytes() == index
    assert sh(repo, "status", "--porcelain") == ""
    assert [r.name for r in wt.records(repo)] == ["fix-a"]
    patch = wt.diff(record)
    assert wt.conflicts(repo, patch) == []
    wt.apply(repo, patch)
    assert (repo / "a.txt").read_text() == "one\nTWO\nthree\n"
    assert (repo / "new.txt").read_text() == "new\n"
    wt.remove(repo, record)
    assert "fix-a" not in sh(repo, "worktree", "list")
    assert "agent/fix-a" not in sh(repo, "branch", "--list")
    assert wt.records(repo) == []


def test_a_conflicting_diff_is_refused_with_the_file_named(repo: Path) -> None:
    record = wt.create(repo, "fix-b")
    Path(record.path, "a.txt").write_text("one\nBEE\nthree\n")
    (repo / "a.txt").write_text("one\nmine\nthree\n")
    assert wt.conflicts(repo, wt.diff(record)) == ["a.txt"]
    assert (repo / "a.txt").read_text() == "one\nmine\nthree\n"


def test_a_branch_base_is_resolved_once(repo: Path) -> None:
    sh(repo, "branch", "feature")
    first = sh(repo, "rev-parse", "feature").strip()
    record = wt.create(repo, "on-feature", base="feature")
    (repo / "b.txt").write_text("b\n")
    sh(repo, "add", "b.txt")
    sh(repo, "commit", "-qm", "second")
    sh(repo, "branch", "-f", "feature", "HEAD")
    assert wt.load(repo, "on-feature").base == first
    assert not wt.changed(record)


def test_two_worktrees_do_not_see_each_other(repo: Path) -> None:
    one, two = wt.create(repo, "one"), wt.create(repo, "two")
    Path(one.path, "a.txt").write_text("changed by one\n")
    assert Path(two.path, "a.txt").read_text() == "one\ntwo\nthree\n"
    assert wt.changed(one)
    assert not wt.changed(two)


def test_bad_names_and_bases_are_usage_errors(repo: Path) -> None:
    with pytest.raises(UsageError, match="name"):
        wt.create(repo, "../escape")
    with pytest.raises(UsageError, match="--base nope"):
        wt.create(repo, "x", base="nope")
