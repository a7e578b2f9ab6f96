"""Before the fast exit, the files a run wrote are the ones synced: new and changed files of the
watched state folders (and their folders' entries), not what an earlier run left."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from agent_cli.core.files import durable


def test_only_what_was_written_since_the_start_is_chosen(tmp_path: Path):
    old = tmp_path / "logs" / "old.log"
    old.parent.mkdir()
    old.write_text("an earlier run's")
    long_ago = time.time() - 3600
    os.utime(old, (long_ago, long_ago))
    start = time.time()
    new = tmp_path / "logs" / "agent.log"
    new.write_text("this run's")
    nested = tmp_path / "notes" / "n-1" / "log.txt"
    nested.parent.mkdir(parents=True)
    nested.write_text("a note")
    chosen = set(durable.written_since(str(tmp_path), start))
    assert {str(new), str(nested), str(nested.parent)} <= chosen
    assert str(old) not in chosen


def test_sync_written_covers_the_watched_folders_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(durable, "_FOLDERS", [])
    watched, other = tmp_path / "watched", tmp_path / "other"
    for folder in (watched, other):
        folder.mkdir()
        (folder / "f.txt").write_text("x")
    durable.watch(watched)
    durable.watch(watched)  # once is enough
    durable.watch(tmp_path / "missing")  # a folder the run never made: skipped
    assert durable.sync_written(since=time.time() - 60) == 2  # the file and its folder
