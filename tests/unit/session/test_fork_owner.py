"""Issue 40 (one writer per session) and issue 34 (forks): the lock a session's writer holds is
the kernel's (a dead holder holds nothing), and a fork holds exactly its parent's history,
compactions included, with every byte offset carried over to where its line sits in the fork."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agent_cli.core.files.paths import Paths
from agent_cli.core.history import interrupted_results, user_text
from agent_cli.core.markers import USER_INTERRUPTED
from agent_cli.core.options import Options
from agent_cli.runtime.opening import restore_target
from agent_cli.session.fork import fork_session
from agent_cli.session.owner import holder_pid, take_session
from agent_cli.session.resume import fold
from agent_cli.session.transcript import (
    EpisodeRecord,
    NoteRecord,
    SessionRecord,
    ShownRecord,
    TodosRecord,
    TranscriptWriter,
)
from tests.unit.session.test_boundary import NOTE, _session, msg

HOLD = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from agent_cli.core.files.paths import Paths\n"
    "from agent_cli.session.owner import take_session\n"
    "owner = take_session(Paths(Path(sys.argv[1])), 's')\n"
    "print('held' if owner else 'refused', flush=True)\n"
    "time.sleep(60)\n"
)


def test_a_second_holder_is_refused_and_a_dead_one_holds_nothing(tmp_path: Path):
    paths = Paths(tmp_path)
    argv = [sys.executable, "-c", HOLD, str(tmp_path)]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) as holder:
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline().strip() == "held"
            assert take_session(paths, "s") is None
            assert holder_pid(paths, "s") == holder.pid
        finally:
            holder.kill()  # SIGKILL: no clean-up of its own
    owner = take_session(paths, "s")
    assert owner is not None
    assert owner.held
    assert holder_pid(paths, "s") != holder.pid


def test_a_second_open_in_the_same_process_is_refused_until_released(tmp_path: Path):
    paths = Paths(tmp_path)
    first = take_session(paths, "s")
    assert first is not None
    assert take_session(paths, "s") is None
    first.release()
    second = take_session(paths, "s")
    assert second is not None
    assert not first.take_again()
    second.release()
    assert first.take_again()


def _forked(tmp_path: Path, parent: Path) -> Path:
    paths = Paths(tmp_path)
    fork, owner = fork_session(paths, parent, "/w", "m")
    assert owner.held
    assert fork.parent == paths.transcripts
    return fork


def test_a_fork_after_compactions_folds_to_the_parents_state(tmp_path: Path):
    paths = Paths(tmp_path)
    parent = paths.transcript("20260101-000000-aaaaaa")
    writer, _live = _session(parent, 35)
    writer.append(TodosRecord(todos=[{"content": "t", "status": "pending"}]))
    writer.append(NoteRecord(note=NOTE))
    writer.append(EpisodeRecord(episode={"id": "e1"}))
    state = fold(parent)
    kept = state.messages[-4:]
    TranscriptWriter(parent, state.ledger).compaction("snip", [*state.messages[:2], *kept], None, 0)
    before = parent.read_bytes()
    fork = _forked(tmp_path, parent)
    assert parent.read_bytes() == before  # the parent is only read
    theirs, ours = fold(parent), fold(fork)
    assert ours.id == fork.stem != theirs.id
    assert ours.messages == theirs.messages
    assert (ours.calls, ours.compactions, ours.usage) == (theirs.calls, 4, theirs.usage)
    assert [t.content for t in ours.todos] == ["t"]
    assert [n.id for n in ours.notes] == ["n1"]
    assert ours.episodes == [{"id": "e1"}]
    head = json.loads(fork.read_text().splitlines()[0])
    assert head["forked_from"] == parent.stem
    # the fork's writer goes on referring into the fork's own lines, not the parent's
    TranscriptWriter(fork, ours.ledger).compaction("snip", ours.messages[-2:], None, 0)
    assert json.loads(fork.read_text().splitlines()[-1])["messages"] == []
    assert fold(fork).messages == ours.messages[-2:]


def test_a_fork_copies_whole_lines_only_and_leaves_broken_ones_out(tmp_path: Path):
    parent = tmp_path / "p.jsonl"
    writer = TranscriptWriter(parent)
    writer.append(SessionRecord(id="p", workspace="/w", model="m"))
    writer.message(msg("user", "q"))
    writer.message(msg("assistant", "a"))
    with parent.open("ab") as f:
        f.write(b"{not json\n")
        f.write(b'{"type":"message","ts":"t","message":{"role":"us')  # still being written
    fork = _forked(tmp_path, parent)
    assert fold(fork).messages == [msg("user", "q"), msg("assistant", "a")]
    assert len(fork.read_text().splitlines()) == 3


def test_a_parent_without_its_first_line_forks_with_one_rebuilt(tmp_path: Path):
    parent = tmp_path / "p.jsonl"
    writer = TranscriptWriter(parent)
    writer.message(msg("user", "q"))
    writer.message(msg("assistant", "a"))
    fork = _forked(tmp_path, parent)
    head = json.loads(fork.read_text().splitlines()[0])
    assert (head["type"], head["workspace"], head["model"]) == ("session", "/w", "m")
    assert fold(fork).messages == [msg("user", "q"), msg("assistant", "a")]


def _tool_round(writer: TranscriptWriter, n: int) -> None:
    call = {"type": "tool_use", "id": f"toolu_{n}", "name": "bash", "input": {"command": "ls"}}
    writer.message({"role": "assistant", "content": [call]})
    result = {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": "ok"}
    writer.message({"role": "user", "content": [result]})


def _started(tmp_path: Path, parent: Path) -> TranscriptWriter:
    """`parent` with its first line and a first exchange."""
    writer = TranscriptWriter(parent)
    writer.append(SessionRecord(id=parent.stem, workspace=str(tmp_path), model="m"))
    writer.message(msg("user", "A0"))
    writer.message(msg("assistant", "done A0"))
    return writer


def _parent_mid_turn(tmp_path: Path) -> Path:
    """Two finished turns (the second with a tool round), then a third its writer is in:
    the prompt and a tool round, no answer yet."""
    paths = Paths(tmp_path)
    parent = paths.transcript("20260101-000000-aaaaaa")
    writer = _started(tmp_path, parent)
    writer.message(msg("user", "A1"))
    _tool_round(writer, 1)
    writer.message(msg("assistant", "done A1"))
    writer.message(msg("user", "B2"))
    _tool_round(writer, 2)
    return parent


FINISHED = ["A0", "done A0", "A1", "", "", "done A1"]


def _texts(path: Path) -> list[str]:
    out = []
    for message in fold(path).messages:
        blocks = message["content"] if isinstance(message["content"], list) else []
        out.append(" ".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text"))
    return out


def test_a_session_a_live_run_holds_forks_without_the_turn_that_run_is_in(tmp_path: Path):
    """Two `--continue` at once: the one that found the session held forked it while the other
    had already written its prompt; the fork took that prompt for its own history, and its own
    prompt joined it in one user message (`B1 A1`), a conversation no model ever had."""
    parent = _parent_mid_turn(tmp_path)
    paths = Paths(tmp_path)
    holder = take_session(paths, parent.stem)  # the other run (a second open is refused)
    assert holder is not None
    restored, owner = restore_target(Options(workspace=tmp_path, resume=parent.stem), paths)
    assert restored is not None
    assert owner is not None
    assert "is in use by another run" in (restored.forked or "")
    fork = paths.transcript(restored.id)
    assert fork != parent
    assert _texts(fork) == FINISHED
    assert len(_texts(parent)) == len(FINISHED) + 3  # the parent is only read
    holder.release()


def test_a_fork_of_a_session_nobody_holds_keeps_its_unfinished_turn(tmp_path: Path):
    """`--fork-session` of a session whose writer died mid-turn: that turn is part of the
    history (resume answers its open call as interrupted), so the fork keeps it."""
    parent = _parent_mid_turn(tmp_path)
    paths = Paths(tmp_path)
    restored, owner = restore_target(
        Options(workspace=tmp_path, resume=parent.stem, fork_session=True), paths
    )
    assert restored is not None
    assert owner is not None
    assert _texts(paths.transcript(restored.id)) == [*FINISHED, "B2", "", ""]
    again = take_session(paths, parent.stem)  # looking whether it was held let it go again
    assert again is not None


def test_a_turn_that_failed_is_finished_and_the_live_turn_after_it_is_left_out(
    tmp_path: Path,
):
    paths = Paths(tmp_path)
    parent = paths.transcript("20260101-000000-bbbbbb")
    writer = _started(tmp_path, parent)
    writer.message(msg("user", "A1"))
    writer.append(ShownRecord(kind="error", text="Cannot reach the model"))
    writer.message(msg("user", "B2"))
    fork, _owner = fork_session(paths, parent, str(tmp_path), "m", finished_only=True)
    assert _texts(fork) == ["A0", "done A0", "A1"]


def test_a_turn_stopped_by_its_user_is_finished_and_kept_in_a_fork_of_the_live_session(
    tmp_path: Path,
):
    """Stopped mid-tool (its calls answered as interrupted) or mid-reply (the marker): the
    turn is over, so a fork made while its run still holds the session keeps it."""
    paths = Paths(tmp_path)
    parent = paths.transcript("20260101-000000-cccccc")
    writer = _started(tmp_path, parent)
    call = {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls"}}
    writer.message({"role": "assistant", "content": [call]})
    writer.message(interrupted_results([call]))
    writer.message(msg("user", "A1"))
    writer.message(msg("assistant", "partial"))
    writer.message(user_text(USER_INTERRUPTED))
    stopped = fold(parent).messages
    fork, _owner = fork_session(paths, parent, str(tmp_path), "m", finished_only=True)
    assert fold(fork).messages == stopped
    assert stopped[-1] == user_text(USER_INTERRUPTED)
    writer.message(msg("user", "B2"))  # and then its run's next turn begins
    fork, _owner = fork_session(paths, parent, str(tmp_path), "m", finished_only=True)
    assert fold(fork).messages == stopped
