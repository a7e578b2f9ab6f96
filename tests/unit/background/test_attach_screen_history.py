"""What `agent attach` draws as history (attach_history.py; the session draws it for the
client): the transcript as far as the session had written it when the client joined (what
comes after arrives as events, and would be drawn twice), a call still running drawn live
rather than as done; and `agent attach` leaves to typer what its quick path does not answer."""

from __future__ import annotations

from pathlib import Path

from agent_cli.core.events import Event
from agent_cli.ext.background.acp.attach_history import drawn, history, joined_line, wanted
from agent_cli.ext.background.acp.attach_quick import quick
from agent_cli.session.transcript import MessageRecord, SessionRecord, TranscriptWriter


def _transcript(tmp_path: Path) -> tuple[Path, int]:
    """A session waiting on its call `w1`; its size then, and a record written after."""
    path = tmp_path / "20260101-s1.jsonl"
    writer = TranscriptWriter(path)
    writer.append(SessionRecord(id=path.stem, workspace=str(tmp_path), model="m"))
    writer.append(MessageRecord(message={"role": "user", "content": "write a"}))
    call = {"type": "tool_use", "id": "w1", "name": "write_file", "input": {"path": "a.txt"}}
    writer.append(MessageRecord(message={"role": "assistant", "content": [call]}))
    joined = path.stat().st_size
    result = {"type": "tool_result", "tool_use_id": "w1", "content": "wrote a.txt"}
    writer.append(MessageRecord(message={"role": "user", "content": [result]}))
    writer.append(MessageRecord(message={"role": "assistant", "content": "AFTER THE JOIN"}))
    return path, joined


def test_the_history_stops_where_the_client_joined_and_a_running_call_is_not_done(
    tmp_path: Path,
):
    path, joined = _transcript(tmp_path)
    calls: list[Event] = []
    meta = {"transcript": str(path), "size": joined}
    text = "\n".join(history(meta, 80, False, calls.append, {"w1"}))
    assert "you> write a" in text
    assert "AFTER THE JOIN" not in text  # it comes as events
    assert "write_file" not in text  # running: its spinner is live, not a ✔ here
    whole = "\n".join(
        history({**meta, "size": path.stat().st_size}, 80, False, calls.append, {"w1"})
    )
    assert "write_file a.txt" in whole  # once it has its result, it is history
    assert "AFTER THE JOIN" in whole
    assert history({"transcript": "", "size": 0}, 80, False, calls.append, set()) == []


def test_attach_leaves_to_typer_what_its_quick_path_does_not_answer():
    assert quick(["--acp", "pair"]) is None  # an editor's
    assert quick(["--help"]) is None
    assert quick(["pair", "--acp"]) is None
    assert quick(["pair"]) is None  # stdin and stdout are not a terminal here: the line client


def test_the_session_draws_for_a_client_what_the_client_would_draw(tmp_path: Path):
    path, joined = _transcript(tmp_path)
    meta = {"transcript": str(path), "size": joined}
    terminal = {"width": 60, "color": True, "joined": "── attached ──"}
    draw = wanted({"agent/events": True, "agent/draw": terminal})
    assert draw == {"width": 60, "color": True, "joined": "── attached ──"}
    here = history(meta, 60, True, lambda event: None, {"w1"})
    assert drawn(meta, draw, ["w1"]) == [*here, joined_line("── attached ──", 60, True)]
    assert wanted({"agent/events": True}) is None  # a client that draws for itself
    assert wanted({"agent/draw": {"width": "wide"}}) is None
    unreadable = {"transcript": str(tmp_path / "gone.jsonl"), "size": 10}
    assert drawn(unreadable, draw, []) is None  # the client draws it (and says why) then
