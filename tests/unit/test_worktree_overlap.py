"""Sibling patches checked against each other, and the working tree snapshotted untouched."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent_cli.ext.worktrees import worktree as wt
from agent_cli.ext.worktrees.overlap import overlaps, ranges
from agent_cli.ext.worktrees.snapshot import working_tree_commit
from tests.e2e.worktree_support import make_repo, sh


def patch_of(repo: Path, name: str, path: str, text: str) -> str:
    record = wt.create(repo, name)
    Path(record.path, path).write_text(text)
    return wt.diff(record)


def test_hunks_far_apart_do_not_overlap_and_near_ones_do(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    lines = [f"line {n}\n" for n in range(1, 41)]
    (repo / "a.txt").write_text("".join(lines))
    sh(repo, "commit", "-qam", "forty lines")

    def changed(at: int) -> str:
        return "".join(
            f"{line.strip()} changed\n" if n == at else line for n, line in enumerate(lines, 1)
        )

    top, end, near = (
        patch_of(repo, "top", "a.txt", changed(2)),
        patch_of(repo, "end", "a.txt", changed(38)),
        patch_of(repo, "near", "a.txt", changed(4)),
    )
    assert ranges(top) == {"a.txt": [(1, 6)]}
    (clash,) = overlaps({"top": top, "end": end, "near": near})
    assert (clash.path, clash.first, clash.second) == ("a.txt", "near", "top")
    assert clash.text() == "a.txt (lines 1-5) is changed by both near and top"


def test_new_files_overlap_as_whole_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    one = patch_of(repo, "one", "new.txt", "from one\n")
    two = patch_of(repo, "two", "new.txt", "from two\n")
    other = patch_of(repo, "other", "else.txt", "x\n")
    (clash,) = overlaps({"one": one, "two": two, "other": other})
    assert clash.lines == "the whole file"


def test_the_snapshot_holds_uncommitted_work_and_touches_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "a.txt").write_text("edited\n")
    (repo / "untracked.txt").write_text("new\n")
    index, status = (repo / ".git" / "index").read_bytes(), sh(repo, "status", "--porcelain")
    commit = working_tree_commit(repo)
    assert (repo / ".git" / "index").read_bytes() == index
    assert sh(repo, "status", "--porcelain") == status
    assert sh(repo, "show", f"{commit}:a.txt") == "edited\n"
    assert sh(repo, "show", f"{commit}:untracked.txt") == "new\n"
    assert sh(repo, "rev-parse", f"{commit}^") == sh(repo, "rev-parse", "HEAD")
    unborn = tmp_path / "unborn"
    unborn.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=unborn, check=True)
    (unborn / "f.txt").write_text("f\n")
    assert sh(unborn, "show", f"{working_tree_commit(unborn)}:f.txt") == "f\n"
