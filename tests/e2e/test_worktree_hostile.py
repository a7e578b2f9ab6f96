"""Worktrees under pressure: two sessions at once on one base, a dirty checkout, a `.agent`
symlink committed by the repository, a start from inside another agent's worktree, a name in
use, GIT_DIR pointing at another repository."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent_cli.ext.worktrees import worktree as wt
from tests.e2e.helpers import REPO, last_user_blocks, run_agent
from tests.e2e.worktree_support import Seen, agent_branches, make_repo, sh, worktrees
from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import first_user_contains


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _barrier(mine: str, other: str, flags: Path) -> str:
    """Write own file, say so, wait (bounded) for the other run to have written its own, list."""
    return (
        f"echo {mine} > {mine}.txt && touch {flags}/{mine} && "
        f"for i in $(seq 300); do [ -f {flags}/{other} ] && break; sleep 0.05; done; ls"
    )


def _start(env: dict[str, str], repo: Path, name: str) -> subprocess.Popen[str]:
    argv = ["run", "-p", f"task {name}", "--permission-mode", "bypass", "--worktree", name]
    return subprocess.Popen(
        [sys.executable, "-m", "agent_cli", *argv],
        cwd=repo,
        env={**env, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.usefixtures("sandbox_off")  # the runs meet through flag files outside their trees
def test_two_concurrent_runs_do_not_see_each_other(
    fake_model: FakeAnthropic, fake_env: dict[str, str], repo: Path, tmp_path: Path
) -> None:
    flags = tmp_path / "flags"
    flags.mkdir()
    before = Seen.of(repo)
    for mine, other in (("one", "two"), ("two", "one")):
        script = fake_model.route(first_user_contains(f"task {mine}"))
        script.tool_use("bash", command=_barrier(mine, other, flags)).text(f"{mine} done")
    runs = [_start(fake_env, repo, name) for name in ("one", "two")]
    for proc in runs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    assert (flags / "one").exists()
    assert (flags / "two").exists()
    for mine, other in (("one", "two"), ("two", "one")):
        listing = next(
            b for body in fake_model.bodies() if f"task {mine}" in str(body["messages"][0])
            for b in last_user_blocks(body) if b["type"] == "tool_result"
        )  # fmt: skip
        assert f"{mine}.txt" in str(listing["content"])
        assert f"{other}.txt" not in str(listing["content"])
    rows = {r["name"]: r for r in worktrees(fake_env, repo)}
    assert rows["one"]["files"] == ["one.txt"]
    assert rows["two"]["files"] == ["two.txt"]
    assert rows["one"]["base"] == rows["two"]["base"] == before.head.strip()
    assert Seen.of(repo) == before


def test_a_dirty_checkout_is_named_and_left_alone(
    fake_model: FakeAnthropic, fake_env: dict[str, str], repo: Path
) -> None:
    (repo / "a.txt").write_text("one\nmine, uncommitted\nthree\n")
    before = Seen.of(repo)
    fake_model.script.tool_use("read_file", path="a.txt").text("read")
    proc = run_agent(fake_env, repo, "run", "-p", "look", "--worktree", "d")
    assert proc.returncode == 0, proc.stderr
    assert "uncommitted changes are not in it" in proc.stderr
    (_, second) = fake_model.bodies()
    assert "mine, uncommitted" not in str(second["messages"])  # the worktree has the base
    assert Seen.of(repo) == before


def test_a_committed_agent_symlink_is_refused(
    fake_env: dict[str, str], repo: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".agent").symlink_to(elsewhere)
    sh(repo, "add", ".agent")
    sh(repo, "commit", "-qm", "a symlink")
    proc = run_agent(fake_env, repo, "run", "-p", "x", "--worktree", "s")
    assert proc.returncode == 2
    assert "is a symlink" in proc.stderr
    assert list(elsewhere.iterdir()) == []
    assert agent_branches(repo) == []


def test_started_inside_another_agents_worktree(
    fake_model: FakeAnthropic, fake_env: dict[str, str], repo: Path
) -> None:
    other = wt.create(repo, "other")
    Path(other.path, "a.txt").write_text("the other agent's work\n")
    sh(Path(other.path), "commit", "-qam", "other's commit")
    fake_model.script.tool_use("read_file", path="a.txt").text("read")
    proc = run_agent(fake_env, Path(other.path), "run", "-p", "x", "--worktree", "mine")
    assert proc.returncode == 0, proc.stderr
    assert f"made in {repo}" in proc.stderr
    (_, second) = fake_model.bodies()
    assert "the other agent's work" not in str(second["messages"])
    assert not (Path(other.path) / ".agent" / "worktrees").exists()  # not nested in it
    assert agent_branches(repo) == ["agent/other"]  # unchanged 'mine' was removed


def test_a_worktree_in_use_is_refused_and_not_removed(fake_env: dict[str, str], repo: Path) -> None:
    record = wt.create(repo, "busy")
    held = wt.hold(repo, "busy")
    try:
        proc = run_agent(fake_env, repo, "run", "-p", "x", "--worktree", "busy")
        assert proc.returncode == 2
        assert "in use by another session" in proc.stderr
        removing = run_agent(fake_env, repo, "worktrees", "remove", "busy")
        assert removing.returncode == 2
        assert "in use" in removing.stderr
        assert Path(record.path).is_dir()
    finally:
        held.close()
    assert run_agent(fake_env, repo, "worktrees", "remove", "busy").returncode == 0


def test_git_dir_in_the_environment_does_not_pick_the_repository(
    fake_model: FakeAnthropic, fake_env: dict[str, str], repo: Path, tmp_path: Path
) -> None:
    decoy = make_repo(tmp_path / "decoy")
    fake_model.script.text("ok")
    env = {**fake_env, "GIT_DIR": str(decoy / ".git"), "GIT_WORK_TREE": str(decoy)}
    proc = run_agent(env, repo, "run", "-p", "x", "--worktree", "right")
    assert proc.returncode == 0, proc.stderr
    assert "worktree right: nothing changed, removed" in proc.stderr
    assert sh(decoy, "worktree", "list").count("\n") == 1
    assert agent_branches(decoy) == []
