"""The checkpoint store on real git: incremental snapshots, .gitignore, hostile repositories,
oversized files and links that point outside the workspace."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.features import CheckpointSettings
from agent_cli.ext.checkpoints.rewind import open_store, rewind
from agent_cli.ext.checkpoints.store import CheckpointStore
from tests.e2e.checkpoint_support import git, tree_bytes


def store_for(workspace: Path, **settings: int) -> CheckpointStore:
    store = open_store(Paths(workspace), workspace, CheckpointSettings(**settings))
    assert store is not None
    return store


def tracked(store: CheckpointStore, tree: str) -> dict[str, str]:
    """path -> mode of every entry of a snapshot tree."""
    out = store.git.run("ls-tree", "-r", "-z", tree).split(b"\0")
    entries = [e.decode().split("\t", 1) for e in out if e]
    return {path: meta.split(" ")[0] for meta, path in entries}


def undo_everything(store: CheckpointStore, target_id: str) -> None:
    target = store.find(target_id)
    rewind(store, target, code=True, conversation=False, session_id="s", new_session_id="n")


def test_unchanged_tree_makes_no_commit_and_no_objects(tmp_path: Path):
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.o").write_text("ignored")
    store = store_for(tmp_path)
    first = store.take("s", "one", 0)
    objects = sorted((store.dir / "git" / "objects").rglob("*"))
    second = store.take("s", "two", 0)
    assert second.commit == first.commit
    assert sorted((store.dir / "git" / "objects").rglob("*")) == objects
    assert (first.turn, second.turn) == (1, 2)
    assert set(tracked(store, first.tree)) == {".gitignore", "a.txt"}  # build/ and .agent/ out


def test_state_folders_are_left_out_and_ignore_themselves(tmp_path: Path):
    git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("a\n")
    store = store_for(tmp_path)
    paths = Paths(tmp_path)
    for folder in (paths.transcripts, paths.notes, paths.logs):
        from agent_cli.core.files.paths import make_dirs

        make_dirs(folder / "deeper")
        (folder / "deeper" / "f").write_text("agent data")
    checkpoint = store.take("s", "p", 0)
    assert set(tracked(store, checkpoint.tree)) == {"a.txt"}
    assert git(tmp_path, "status", "--porcelain", "--untracked-files=all") == "?? a.txt\n"
    assert (tmp_path / ".agent" / ".gitignore").read_text() == "*\n!settings.json\n"


def test_an_existing_user_folder_named_like_a_state_folder_gets_no_gitignore(tmp_path: Path):
    from agent_cli.core.files.paths import make_dirs

    (tmp_path / "logs").mkdir()  # the user's own, committed folder
    make_dirs(tmp_path / "logs" / "sub")
    assert not (tmp_path / "logs" / ".gitignore").exists()


def test_hostile_repository_runs_nothing_and_converts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    marker = tmp_path / "pwned"
    git(workspace, "init", "-q")
    evil = f"touch {marker}"
    for key, value in (
        ("core.fsmonitor", evil),
        ("diff.external", evil),
        ("filter.evil.clean", evil),
        ("filter.evil.smudge", evil),
        ("core.hooksPath", str(workspace / "hooks")),
        ("core.autocrlf", "true"),
    ):
        git(workspace, "config", key, value)
    (workspace / "hooks").mkdir()
    for hook in ("post-commit", "pre-commit", "post-checkout", "reference-transaction"):
        (workspace / "hooks" / hook).write_text(f"#!/bin/sh\n{evil}\n")
        (workspace / "hooks" / hook).chmod(0o755)
    (workspace / ".gitattributes").write_text("* text=auto eol=crlf filter=evil diff=evil\n")
    home = tmp_path / "home"  # and a user config that would run a program too
    home.mkdir()
    (home / ".gitconfig").write_text(f"[core]\n\tfsmonitor = {evil}\n")
    monkeypatch.setenv("HOME", str(home))
    (workspace / "lf.txt").write_bytes(b"one\ntwo\n")
    store = store_for(workspace)
    checkpoint = store.take("s", "p", 0)
    (workspace / "lf.txt").write_bytes(b"changed\n")
    assert "+changed" in store.diff(checkpoint.tree, store.now().tree)
    undo_everything(store, checkpoint.id)
    assert not marker.exists()
    assert (workspace / "lf.txt").read_bytes() == b"one\ntwo\n"
    assert not (workspace / ".git" / "index").exists()  # the user's git was never written


def test_big_file_is_skipped_and_a_link_outside_is_kept_as_a_link(tmp_path: Path):
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("outside data")
    os.mkfifo(outside / "pipe")  # opening it to read would block: reading through links hangs
    with (workspace / "big.bin").open("wb") as f:
        f.truncate(200 * 1024 * 1024)  # sparse: 200 MB without the disk
    (workspace / "to-outside").symlink_to(outside)
    (workspace / "to-pipe").symlink_to(outside / "pipe")
    (workspace / "small.txt").write_text("small\n")
    store = store_for(workspace)
    checkpoint = store.take("s", "p", 0)
    assert [(s.path, s.size) for s in checkpoint.skipped] == [("big.bin", 200 * 1024 * 1024)]
    assert tracked(store, checkpoint.tree) == {
        "small.txt": "100644",
        "to-outside": "120000",
        "to-pipe": "120000",
    }

    (workspace / "to-outside").unlink()
    (workspace / "to-outside").write_text("now a file")
    (workspace / "to-pipe").unlink()
    result = rewind(store, checkpoint, code=True, conversation=False, session_id="s",
                    new_session_id="n")  # fmt: skip
    assert (workspace / "to-outside").is_symlink()
    assert (workspace / "to-outside").readlink() == outside
    assert (workspace / "to-pipe").readlink() == outside / "pipe"
    assert result.skipped(checkpoint) == ["big.bin"]
    assert (workspace / "big.bin").stat().st_size == 200 * 1024 * 1024  # untouched
    assert sorted(p.name for p in outside.iterdir()) == ["pipe", "secret.txt"]
    assert (outside / "secret.txt").read_text() == "outside data"


def test_restore_never_writes_through_a_link(tmp_path: Path):
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (workspace / "dir").mkdir()
    (workspace / "dir" / "f.txt").write_text("v1")
    store = store_for(workspace)
    checkpoint = store.take("s", "p", 0)
    (workspace / "dir" / "f.txt").unlink()
    (workspace / "dir").rmdir()
    store.take("s", "deleted", 0)
    (workspace / "dir").symlink_to(outside)  # appears after, in the way of dir/f.txt
    (workspace / ".gitignore").write_text("dir\n")  # ignored: not in the pre-rewind snapshot
    result = rewind(store, checkpoint, code=True, conversation=False, session_id="s",
                    new_session_id="n")  # fmt: skip
    assert list(outside.iterdir()) == []
    assert result.restored is not None
    assert any(item.startswith("dir/f.txt:") for item in result.restored.left_alone)


def test_file_in_the_way_that_the_snapshot_lacks_is_left_alone(tmp_path: Path):
    (tmp_path / "keep.txt").write_text("v1")
    store = store_for(tmp_path, max_file_bytes=10)
    checkpoint = store.take("s", "p", 0)
    (tmp_path / "keep.txt").write_text("grown far past the limit")  # now skipped, not stored
    result = rewind(store, checkpoint, code=True, conversation=False, session_id="s",
                    new_session_id="n")  # fmt: skip
    assert (tmp_path / "keep.txt").read_text() == "grown far past the limit"
    assert result.skipped(checkpoint) == ["keep.txt"]
    assert result.restored is not None
    assert result.restored.left_alone == [
        "keep.txt: exists and is not in the snapshot; left as it is"
    ]


def test_rewind_removes_folders_the_turn_created_and_modes_come_back(tmp_path: Path):
    (tmp_path / "run.sh").write_text("#!/bin/sh\n")
    (tmp_path / "run.sh").chmod(0o755)
    store = store_for(tmp_path)
    checkpoint = store.take("s", "p", 0)
    before = tree_bytes(tmp_path)
    (tmp_path / "new" / "deep").mkdir(parents=True)
    (tmp_path / "new" / "deep" / "x.txt").write_text("x")
    (tmp_path / "run.sh").chmod(0o644)
    undo_everything(store, checkpoint.id)
    assert not (tmp_path / "new").exists()
    assert tree_bytes(tmp_path) == before
    assert (tmp_path / "run.sh").stat().st_mode & 0o100


def test_git_missing_or_disabled_means_no_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    assert open_store(Paths(tmp_path), tmp_path, CheckpointSettings(enabled=False)) is None
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert open_store(Paths(tmp_path), tmp_path, CheckpointSettings()) is None


def test_unknown_or_ambiguous_prefix_is_a_usage_error(tmp_path: Path):
    from agent_cli.core.errors import UsageError

    store = store_for(tmp_path)
    store.take("s", "p", 0)
    with pytest.raises(UsageError, match="No checkpoint matches 'zz-nope'"):
        store.find("zz-nope")
    with pytest.raises(UsageError, match="No checkpoint matches"):
        store.find("")


def test_broken_index_line_is_skipped(tmp_path: Path):
    store = store_for(tmp_path)
    first = store.take("s", "p", 0)
    with store.index.open("a") as f:
        f.write('{"type": "checkpoint", "id": "cut-off')
    second = store.take("s", "q", 0)
    assert [c.id for c in store.checkpoints()] == [first.id, second.id]


def test_git_sees_no_user_repository(tmp_path: Path):
    """GIT_DIR is the store's: git run in it never finds the workspace's .git."""
    git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("a")
    store = store_for(tmp_path)
    store.take("s", "p", 0)
    top = store.git.run("rev-parse", "--git-dir").decode().strip()
    assert Path(top) == store.dir / "git"
    out = subprocess.run(["git", "status", "--porcelain"], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    assert out == "?? a.txt\n"


def test_session_files_counts_from_the_first_turn_to_the_newest_end(tmp_path: Path):
    from agent_cli.ext.checkpoints.turn import session_files

    store = store_for(tmp_path)
    assert session_files(store, "s") is None
    first = store.take("s", "one", 0)
    (tmp_path / "a.txt").write_text("a")
    assert session_files(store, "s") is None  # the turn has not ended
    store.end_turn(first)
    second = store.take("s", "two", 0)
    (tmp_path / "a.txt").write_text("again")
    (tmp_path / "b.txt").write_text("b")
    store.end_turn(second)
    assert session_files(store, "s") == 2
    assert session_files(store, "other") is None


def test_many_small_packs_are_rolled_up_and_every_snapshot_still_reads(tmp_path: Path):
    from agent_cli.ext.checkpoints.snapshot import MAX_PACKS

    store = store_for(tmp_path)
    checkpoints = []
    for n in range(MAX_PACKS + 2):
        (tmp_path / f"f{n}.txt").write_text(f"version {n}\n")
        checkpoints.append(store.take("s", f"turn {n}", 0))
    packs = list((store.dir / "git" / "objects" / "pack").glob("*.pack"))
    assert len(packs) <= MAX_PACKS
    first, last = checkpoints[0], checkpoints[-1]
    assert [c.path for c in store.changed(first.tree, last.tree)][:2] == ["f1.txt", "f10.txt"]
    undo_everything(store, first.id)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".agent") == ["f0.txt"]


def test_a_folder_replaced_by_a_link_is_stored_as_the_link_and_put_back(tmp_path: Path):
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / "src" / "deep").mkdir(parents=True)
    outside.mkdir()
    (workspace / "src" / "deep" / "a.py").write_text("a\n")
    store = store_for(workspace)
    checkpoint = store.take("s", "p", 0)
    shutil.rmtree(workspace / "src" / "deep")
    (workspace / "src" / "deep").symlink_to(outside)
    linked = store.take("s", "linked", 0)  # git alone refuses a path beyond a link
    assert tracked(store, linked.tree) == {"src/deep": "120000"}
    undo_everything(store, checkpoint.id)
    assert (workspace / "src" / "deep" / "a.py").read_text() == "a\n"
    assert list(outside.iterdir()) == []


def test_a_link_deep_in_the_store_is_refused_before_anything_is_written(tmp_path: Path):
    from agent_cli.ext.checkpoints.planted import LinkedStore

    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    store = store_for(workspace)
    store.take("s", "p", 0)
    refs = store.dir / "git" / "refs" / "checkpoints"
    shutil.rmtree(refs)
    refs.symlink_to(outside)
    (workspace / "a.txt").write_text("a\n")
    with pytest.raises(LinkedStore, match="refs/checkpoints is a symbolic link") as raised:
        store.take("s", "again", 0)
    assert raised.value.exit_code == 2
    assert list(outside.iterdir()) == []
