"""`agent run --worktree` and `agent worktrees` on a real git repository: the user's checkout,
HEAD, index and status untouched by the run; list, diff, merge (refused on conflict, nothing
changed), remove (no worktree, no branch left).

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.worktree_support import Seen, agent_branches, make_repo, sh, worktrees
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def edit_line_two(fake_model: FakeAnthropic, new: str) -> None:
    fake_model.script.tool_use("read_file", path="a.txt")
    fake_model.script.tool_use("edit_file", path="a.txt", old_string="two", new_string=new)
    fake_model.script.text("edited")


def run_in(env: dict[str, str], repo: Path, name: str, *more: str) -> str:
    proc = run_cli(
        env, repo, "run", "-p", "edit", "--permission-mode", "accept-edits", "--worktree", name,
        *more,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stderr


def test_run_merge_conflict_remove(
    fake_model: FakeAnthropic, fake_env: dict[str, str], repo: Path
) -> None:
    before = Seen.of(repo)
    edit_line_two(fake_model, "TWO")
    stderr = run_in(fake_env, repo, "fix-a")
    assert Seen.of(repo) == before  # HEAD, branch, index bytes, status, files
    assert "worktree fix-a kept" in stderr
    assert "agent worktrees merge fix-a" in stderr
    wt_file = repo / ".agent" / "worktrees" / "fix-a" / "a.txt"
    assert wt_file.read_text() == "one\nTWO\nthree\n"
    (row,) = worktrees(fake_env, repo)
    assert (row["name"], row["branch"], row["base"]) == (
        "fix-a",
        "agent/fix-a",
        before.head.strip(),
    )
    assert row["files"] == ["a.txt"]
    assert row["state"] == "changed"

    edit_line_two(fake_model, "BEE")
    run_in(fake_env, repo, "fix-b")
    merged = run_cli(fake_env, repo, "worktrees", "merge", "fix-a")
    assert merged.returncode == 0, merged.stderr
    assert (repo / "a.txt").read_text() == "one\nTWO\nthree\n"
    after_merge = Seen.of(repo)
    refused = run_cli(fake_env, repo, "worktrees", "merge", "fix-b")
    assert refused.returncode == 1
    assert "a.txt" in refused.stderr
    assert "nothing changed" in refused.stderr
    assert Seen.of(repo) == after_merge

    undo = merged.stdout.splitlines()[1].split()  # undo: agent rewind ID --code
    rewound = run_cli(fake_env, repo, *undo[2:])
    assert rewound.returncode == 0, rewound.stderr
    assert (repo / "a.txt").read_text() == "one\ntwo\nthree\n"

    for name in ("fix-a", "fix-b"):
        assert run_cli(fake_env, repo, "worktrees", "remove", name).returncode == 0
    assert sh(repo, "worktree", "list").count("\n") == 1
    assert agent_branches(repo) == []
    assert worktrees(fake_env, repo) == []


def test_an_unchanged_worktree_is_removed_on_exit(
    fake_model: FakeAnthropic, fake_env: dict[str, str], repo: Path
) -> None:
    fake_model.script.text("nothing to do")
    stderr = run_in(fake_env, repo, "idle")
    assert "worktree idle: nothing changed, removed" in stderr
    assert agent_branches(repo) == []
    assert worktrees(fake_env, repo) == []
    assert not (repo / ".agent" / "worktrees" / "idle").exists()


def test_the_session_is_recorded_with_its_worktree(
    fake_model: FakeAnthropic, fake_env: dict[str, str], repo: Path
) -> None:
    edit_line_two(fake_model, "2")
    run_in(fake_env, repo, "rec")
    listing = run_cli(fake_env, repo, "sessions", "list", "--json")
    (session,) = json.loads(listing.stdout)
    assert session["branch"] == "agent/rec"
    plain = run_cli(fake_env, repo, "sessions", "list").stdout
    assert "[agent/rec]" in plain


def test_a_branch_base_is_resolved_once(
    fake_model: FakeAnthropic, fake_env: dict[str, str], repo: Path
) -> None:
    sh(repo, "branch", "feature")
    first = sh(repo, "rev-parse", "feature").strip()
    edit_line_two(fake_model, "F")
    run_in(fake_env, repo, "feat", "--base", "feature")
    (repo / "b.txt").write_text("b\n")
    sh(repo, "add", "b.txt")
    sh(repo, "commit", "-qm", "second")
    sh(repo, "branch", "-f", "feature", "HEAD")
    (row,) = worktrees(fake_env, repo)
    assert row["base"] == first
    assert row["base_ref"] == "feature"
    assert row["files"] == ["a.txt"]  # b.txt, on the moved branch, is not part of its diff


def test_outside_a_repository_and_bad_flags_exit_2(
    fake_env: dict[str, str], tmp_path: Path, repo: Path
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    proc = run_cli(fake_env, plain, "run", "-p", "x", "--worktree", "a")
    assert proc.returncode == 2
    assert "not inside a git repository" in proc.stderr
    bad_name = run_cli(fake_env, repo, "run", "-p", "x", "--worktree", "../up")
    assert bad_name.returncode == 2
    assert "worktree name" in bad_name.stderr
    bad_base = run_cli(fake_env, repo, "run", "-p", "x", "--worktree", "b", "--base", "nope")
    assert bad_base.returncode == 2
    assert "--base nope" in bad_base.stderr
    lone_base = run_cli(fake_env, repo, "run", "-p", "x", "--base", "HEAD")
    assert lone_base.returncode == 2
    assert "--base needs --worktree" in lone_base.stderr
    chat = run_cli(fake_env, plain, "chat", "--worktree", stdin="")
    assert chat.returncode == 2
    assert "not inside a git repository" in chat.stderr
    unknown = run_cli(fake_env, repo, "worktrees", "merge", "ghost")
    assert unknown.returncode == 2
    assert "no worktree named ghost" in unknown.stderr
    for each in (proc, bad_name, bad_base, lone_base, chat, unknown):
        assert "Traceback" not in each.stderr
    assert agent_branches(repo) == []


def test_worktree_without_a_name_gets_one(
    fake_model: FakeAnthropic, fake_env: dict[str, str], repo: Path
) -> None:
    edit_line_two(fake_model, "x")
    proc = run_cli(
        fake_env, repo, "run", "--worktree", "-p", "edit", "--permission-mode", "accept-edits"
    )
    assert proc.returncode == 0, proc.stderr
    (row,) = worktrees(fake_env, repo)
    assert row["name"].startswith("wt-")
    assert row["branch"] == f"agent/{row['name']}"
