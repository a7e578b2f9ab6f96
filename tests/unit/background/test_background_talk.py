"""Messages between background sessions, without their processes: a message lands whole and
owner-only in the receiver's inbox, says who sent it, is taken oldest first, and rings the
receiver only once it listens; an ended session takes none. One that comes while a turn runs
reaches the model at the tool boundary as a notice from `message`, and the turn's answer goes
to the session that started it. The model's tools are offered to a background session's own
process alone, and not when the settings turn them off. A session started from inside another
(its bash's `agent run --bg`, its `start_session`) records that one as its parent."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

import pytest

from agent_cli.core.errors import UsageError
from agent_cli.core.events import Event, ToolEnd, TurnEnd
from agent_cli.core.files.paths import Paths
from agent_cli.core.options import Options
from agent_cli.core.settings.schema import load_settings
from agent_cli.ext.background import EXTENSION, mail, registry
from agent_cli.ext.background.launch import reserve, spec_of
from agent_cli.ext.background.settings import BackgroundSettings
from agent_cli.ext.background.status import Status
from agent_cli.ext.background.talking import Talk
from agent_cli.loop import steering
from agent_cli.runtime.extensions.contract import ExtensionContext
from agent_cli.session.state import Session
from tests.unit.context.fakes import make_session

if TYPE_CHECKING:
    from agent_cli.runtime.runtime import Runtime


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv(mail.ENV, raising=False)
    return registry.folder()


def live(folder: Path, name: str, **fields: object) -> registry.Record:
    """A session whose process is this one (alive, as far as the registry can tell)."""
    me = os.getpid()
    path = folder / f"{name}.json"
    start = registry.process_start(me)
    registry.update(path, name=name, state="working", pid=me, process_start=start, **fields)
    found = registry.read(path)
    assert found is not None
    return found


def test_a_message_waits_owner_only_in_the_inbox_and_says_who_sent_it(
    folder: Path, monkeypatch: pytest.MonkeyPatch
):
    worker, lead = live(folder, "worker"), live(folder, "lead")
    assert mail.post(worker, "first, from the user") == "working"
    monkeypatch.setenv(mail.ENV, str(lead.path))  # what a session's own process has
    mail.post(worker, "second, from the lead")
    (written,) = [p for p in mail.inbox(worker.path).iterdir() if "second" in p.read_text()]
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert stat.S_IMODE(mail.inbox(worker.path).stat().st_mode) == 0o700
    taken = mail.take(worker.path)
    assert [m.for_model() for m in taken] == [
        "[message from the user, sent with agent send]\nfirst, from the user",
        '[message from session "lead"; send_message answers it]\nsecond, from the lead',
    ]
    assert taken[1].sender_path == str(lead.path)  # where the answer to it goes
    assert mail.take(worker.path) == []


def test_an_ended_session_takes_no_message(folder: Path):
    done = live(folder, "done")
    registry.update(done.path, state="done", session_id="s1")
    with pytest.raises(UsageError, match="done has ended \\(done\\): agent run --resume s1"):
        mail.post(registry.read(done.path) or done, "too late")
    assert not mail.inbox(done.path).exists()


def test_the_receiver_is_rung_only_once_it_listens(folder: Path):
    rung: list[int] = []
    before = signal.signal(mail.RING, lambda signum, frame: rung.append(signum))
    try:
        worker = live(folder, "worker")
        mail.post(worker, "before it listens")  # its handler may not be set: no signal
        assert rung == []
        registry.update(worker.path, listening=True)
        mail.post(worker, "once it listens")
        assert rung == [mail.RING]
    finally:
        signal.signal(mail.RING, before)
    assert len(mail.take(worker.path)) == 2  # the first was read when it began to listen


def tool_names(folder: Path, tmp_path: Path, section: dict[str, object]) -> list[str]:
    settings_file = tmp_path / "config" / "agent" / "settings.json"
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings_file.write_text(json.dumps({"background": section}))
    settings = load_settings(tmp_path, sections=(("background", BackgroundSettings),))
    context = ExtensionContext("background", tmp_path, Paths(tmp_path), settings, "sid")
    assert EXTENSION.tools is not None
    return [tool.name for tool in EXTENSION.tools(context)]


def test_the_tools_are_a_background_sessions_own_and_the_settings_turn_them_off(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    assert tool_names(folder, tmp_path, {}) == []  # not a background session's process
    other = live(folder, "other")
    registry.update(other.path, pid=1)  # a nested run under a session: not the session
    monkeypatch.setenv(mail.ENV, str(other.path))
    assert tool_names(folder, tmp_path, {}) == []
    monkeypatch.setenv(mail.ENV, str(live(folder, "me").path))
    assert tool_names(folder, tmp_path, {}) == ["list_sessions", "send_message", "start_session"]
    assert tool_names(folder, tmp_path, {"tools": False}) == []


class ToolThenAnswer:
    """A runtime whose turn runs one tool, then asks the model again (the loop's steering step
    before that request), then ends with its answer."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.settings = SimpleNamespace(background=BackgroundSettings(idle_minutes=0))

    async def turn(self, text: str) -> AsyncIterator[Event]:
        yield ToolEnd(id="t1", name="bash", is_error=False, summary="bash ls")
        steering.deliver(self.session)
        yield TurnEnd(stop="done", text="all done", rounds=2)


def test_a_message_in_mid_turn_is_a_notice_and_the_answer_goes_to_the_parent(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    lead = live(folder, "lead")
    worker = live(folder, "worker", parent=str(lead.path))
    monkeypatch.setenv(mail.ENV, str(lead.path))
    mail.post(worker, "also check the tests")  # it comes as the worker's turn runs its tool
    session = make_session(tmp_path / "worker-state")
    runtime = ToolThenAnswer(session)
    ended = asyncio.run(
        Talk(worker, cast("Runtime", runtime), Status(worker.path, io.StringIO())).run("go")
    )
    assert ended == ""  # idle_minutes 0: it ends once its prompt is done
    told = '[message from session "lead"; send_message answers it]\nalso check the tests'
    transcript = session.paths.transcript(session.id).read_text().splitlines()
    shown = [json.loads(line) for line in transcript if '"shown"' in line]
    assert [(r["kind"], r["id"], r["text"]) for r in shown] == [("notice", "message", told)]
    assert session.messages[-1]["content"][-1]["text"] == told  # after the tool's results
    (answer,) = mail.take(lead.path)
    assert (answer.kind, answer.sender, answer.text) == (mail.ANSWER, "worker", "all done")


def test_a_session_started_from_inside_a_session_records_it_as_its_parent(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    options = Options(workspace=tmp_path)
    alone, _ = reserve(options, spec_of(options, "from a terminal"), "alone")
    lead = live(folder, "lead")
    monkeypatch.setenv(mail.ENV, str(lead.path))  # the lead's bash runs `agent run --bg`
    worker, _ = reserve(options, spec_of(options, "from the lead"), "worker")
    assert [(registry.read(p) or lead).data["parent"] for p in (alone, worker)] == [
        None,
        str(lead.path),
    ]
