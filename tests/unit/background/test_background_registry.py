"""Background sessions' names and records, without a process: a name from the prompt, unique
in its workspace, a bad one refused; a record whose process is gone or whose pid another
process took reads `stopped`, never `working`; a record is written owner-only."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agent_cli.core.errors import UsageError
from agent_cli.ext.background import names, registry


def test_a_name_is_a_few_words_of_the_prompt():
    assert names.from_prompt("Please fix the login bug in auth.py") == "fix-login-bug"
    assert names.from_prompt("Refactorisationnement everything") == "refactorisat-everything"
    assert names.from_prompt("!!! ?") == "session"


def test_a_taken_name_gets_the_next_free_number():
    assert names.unique("fix-bug", {"fix-bug", "fix-bug-2"}) == "fix-bug-3"
    assert names.unique("fix-bug", {"other"}) == "fix-bug"


@pytest.mark.parametrize("bad", ["", "Has Space", "-dash-first", "x" * 41, "a/b"])
def test_a_bad_name_is_refused_naming_the_flag(bad: str):
    with pytest.raises(UsageError, match="--name"):
        names.checked(bad)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    return registry.folder()


def test_records_are_owner_only(folder: Path):
    path = folder / "a.json"
    registry.update(path, name="a", state="done")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_live_state_reads_stopped_when_its_process_is_gone_or_another(folder: Path):
    me = os.getpid()
    mine = registry.process_start(me)
    registry.update(
        folder / "alive.json", name="alive", state="working", pid=me, process_start=mine
    )
    registry.update(
        folder / "reused.json", name="reused", state="working", pid=me, process_start="1"
    )
    registry.update(folder / "gone.json", name="gone", state="waiting: approval", pid=2**22 + 7)
    states = {r.name: (r.state, r.data.get("reason")) for r in registry.records()}
    assert states == {
        "alive": ("working", None),
        "reused": ("stopped", registry.REUSED),
        "gone": ("stopped", registry.GONE),
    }
