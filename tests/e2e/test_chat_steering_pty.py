"""Steering and the ping in `agent chat`, in a pseudo-terminal: text typed during a slow turn
reaches the model at the next tool boundary (before the turn ends), `2 queued` while it waits,
Up takes a queued message back to edit it, and the BEL / OSC bytes on a long turn's end and on
a waiting approval (none when turned off)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic

UP = "\x1b[A"
CTRL_U = "\x15"


def user_settings(env: dict[str, str], settings: dict[str, Any]) -> None:
    folder = Path(env["HOME"]) / ".config" / "agent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(settings))


def texts_after_results(body: dict[str, Any]) -> list[str]:
    last = body["messages"][-1]["content"]
    assert last[0]["type"] == "tool_result"  # the text comes after the results (§16)
    return [b["text"] for b in last if b["type"] == "text"]


def test_typed_text_reaches_the_next_tool_boundary_and_up_edits_it(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    marker = tmp_path / "go-on"
    wait = f"for i in $(seq 300); do [ -e {marker} ] && break; sleep 0.05; done"
    fake_model.script.tool_use("bash", command=wait).text("took both into account")
    term = ChatTerm(fake_env, tmp_path, "--permission-mode", "bypass", columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("run the slow thing")
        term.wait_for(lambda _t: len(fake_model.requests) == 1)
        term.type("first note")
        term.type("second note")
        term.wait_for("2 queued")
        term.send(UP)  # the newest queued message comes back to the input box
        term.wait_for(lambda t: "you> second note" in t and "1 queued" in t)
        term.send(" edited")
        term.type("")
        term.wait_for("2 queued")
        marker.touch()  # the tool ends: the boundary
        term.wait_for("took both into account")
        screen = term.wait_idle()
        seen = term.raw.decode("utf-8", "replace")  # what was printed, scrolled off or not
    finally:
        term.close()
    _, second = fake_model.bodies()  # one request after the tool: the turn did not end first
    assert texts_after_results(second) == ["first note", "second note edited"]
    assert "↳ sent to the model: first note" in seen
    assert "queued" not in screen.splitlines()[-1]


@pytest.mark.usefixtures("sandbox_off")  # a sandboxed write is not asked
def test_the_ping_on_a_long_turn_and_on_a_waiting_approval(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    user_settings(fake_env, {"notify": {"after_s": 0}})
    fake_model.script.tool_use("bash", command="touch made.txt").text("made it")
    term = ChatTerm(fake_env, tmp_path)
    try:
        term.wait_for("you>")
        term.type("make a file")
        term.wait_for("Allow bash touch made.txt?")
        asked = term.raw
        term.send("y")
        term.wait_for("made it")
        term.wait_for(lambda _t: b"done after" in term.raw[len(asked) :])
        ended = term.raw[len(asked) :]
    finally:
        term.close()
    assert b"\a\x1b]9;agent: allow bash touch made.txt?\a" in asked
    assert re.search(rb"\a\x1b\]9;agent: done after \d+ s\a", ended)


@pytest.mark.usefixtures("sandbox_off")  # a sandboxed write is not asked
def test_no_ping_when_turned_off(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    user_settings(fake_env, {"notify": {"after_s": 0, "bell": False, "osc": False}})
    fake_model.script.tool_use("bash", command="touch made.txt").text("made it")
    term = ChatTerm(fake_env, tmp_path)
    try:
        term.wait_for("you>")
        term.type("make a file")
        term.wait_for("Allow bash touch made.txt?")
        term.send("y")
        term.wait_for("made it")
        term.wait_idle()
    finally:
        term.close()
    assert b"\x1b]9;" not in term.raw
    assert b"\a" not in term.raw
