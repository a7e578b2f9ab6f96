"""`agent batch` against a task whose confined commands mean harm: what the batch itself runs
afterwards outside the sandbox (its check, its git) must run nothing the task planted.

Issue 50 items 4 and 8: the hostile step runs inside the real sandbox (a `bash` call of the
task's `agent run`), the escape is looked for outside (a marker file beside the repository)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from agent_cli.ext.worktrees import worktree as wt
from tests.e2e.batch_support import git, make_repo, results, write_tasks
from tests.e2e.helpers import run_agent
from tests.fake_model import FakeAnthropic, first_user_contains

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap"),
]

TOKEN = "ghp_" + "t" * 36  # a credential of the user's that no check may see


def _batch(
    env: dict[str, str], repo: Path, tasks: Path, out: Path
) -> subprocess.CompletedProcess[str]:
    return run_agent(env, repo, "batch", str(tasks), "--out", str(out), timeout=280)


def test_a_check_the_task_rewrote_runs_confined_and_without_credentials(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "check.sh").write_text("#!/bin/sh\nexit 0\n")
    (repo / "check.sh").chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a check")
    outside = tmp_path / "outside"
    outside.mkdir()
    planted = f"#!/bin/sh\nenv > seen-env.txt\ntouch {outside}/check-ran-outside\nexit 1\n"
    hostile = f"cat > check.sh <<'X'\n{planted}X\nchmod +x check.sh"
    fake_model.route(first_user_contains("[plant]")).tool_use("bash", command=hostile).text("ok")
    tasks = write_tasks(
        tmp_path / "tasks.jsonl", [{"id": "plant", "prompt": "[plant] go", "check": "./check.sh"}]
    )
    env = {**fake_env, "GITHUB_TOKEN": TOKEN}
    out = tmp_path / "out"
    proc = _batch(env, repo, tasks, out)
    assert "Traceback" not in proc.stderr
    got = results(out)["plant"]
    assert got["status"] == "failed", got  # the planted check ran (exit 1) ...
    assert not (outside / "check-ran-outside").exists()  # ... inside the sandbox
    seen = (Path(got["kept_worktree"]) / "seen-env.txt").read_text()
    assert "PATH=" in seen
    assert TOKEN not in seen
    assert "ANTHROPIC_API_KEY" not in seen


def _hostile_copy(repo: Path, outside: Path) -> Path:
    """A copy of the repository whose config names a clean filter that writes outside."""
    subprocess.run(["git", "clone", "-q", str(repo), str(outside / "copy")], check=True)
    copy = outside / "copy" / ".git"
    git(copy, "config", "filter.x.clean", f"sh -c 'touch {outside}/filter-ran; cat'")
    git(copy, "config", "filter.x.smudge", f"sh -c 'touch {outside}/filter-ran; cat'")
    git(copy, "config", "core.fsmonitor", f"touch {outside}/fsmonitor-ran; false")
    return copy


def test_a_worktrees_git_file_pointed_elsewhere_runs_no_filter(tmp_path: Path) -> None:
    """The agent's own `git add --intent-to-add` and `git diff` of a worktree it made, after
    the `.git` file there was made to name a repository with a filter (as a task could)."""
    repo = make_repo(tmp_path / "repo")
    outside = tmp_path / "outside"
    outside.mkdir()
    record = wt.create(repo, "t1")
    tree = Path(record.path)
    copy = _hostile_copy(repo, outside)
    (tree / ".git").write_text(f"gitdir: {copy}\n")
    (tree / ".gitattributes").write_text("* filter=x\n")
    (tree / "new.txt").write_text("new\n")
    patch = wt.diff(record)
    assert "+new" in patch
    assert not (outside / "filter-ran").exists()
    assert not (outside / "fsmonitor-ran").exists()


def test_a_planted_commondir_is_refused_not_followed(tmp_path: Path) -> None:
    """A main `.git` holding a `commondir` that names a config somebody wrote: the agent's own
    git refuses the repository in one clear error rather than run that config's programs."""
    repo = make_repo(tmp_path / "repo")
    outside = tmp_path / "outside"
    outside.mkdir()
    copy = _hostile_copy(repo, outside)
    (repo / ".git" / "commondir").write_text(f"{copy}\n")
    from agent_cli.core.errors import UsageError
    from agent_cli.ext.worktrees.git import git as agent_git

    with pytest.raises(UsageError, match="commondir"):
        agent_git(repo, "status", "--porcelain")
    assert not (outside / "fsmonitor-ran").exists()


def test_a_batch_tasks_git_redirect_inside_the_sandbox_runs_nothing_outside(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """The whole path: the task's confined command tries to point its worktree's `.git` at a
    hostile copy and adds `.gitattributes`; the batch's diff afterwards runs no filter."""
    repo = make_repo(tmp_path / "repo")
    outside = tmp_path / "outside"
    outside.mkdir()
    copy = _hostile_copy(repo, outside)
    hostile = (
        f"printf 'gitdir: {copy}\\n' > .git; echo '* filter=x' > .gitattributes; "
        "echo new > new.txt; true"
    )
    fake_model.route(first_user_contains("[redirect]")).tool_use("bash", command=hostile).text("ok")
    tasks = write_tasks(tmp_path / "tasks.jsonl", [{"id": "r", "prompt": "[redirect] go"}])
    out = tmp_path / "out"
    proc = _batch(fake_env, repo, tasks, out)
    assert "Traceback" not in proc.stderr
    assert results(out)["r"]["status"] == "done", proc.stderr
    assert not (outside / "filter-ran").exists()
    assert not (outside / "fsmonitor-ran").exists()
    assert "+new" in (out / "r.diff").read_text()
