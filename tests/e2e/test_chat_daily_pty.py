"""The daily commands as a person meets them in `agent chat`, in a pseudo-terminal at 80x24
(issue 39): /init writes AGENTS.md through an approval, /copy sends the reply through OSC 52,
/btw answers beside a running turn and leaves nothing in the next request, vim mode edits the
input with vi keys, Ctrl-G writes the prompt in $EDITOR."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

from tests.e2e.pty_screen import ENTER, ChatTerm
from tests.e2e.test_chat_steering_pty import user_settings
from tests.fake_model import FakeAnthropic, Reply

ESC = "\x1b"
CTRL_G = "\x07"


def test_init_writes_agents_md_through_an_approval(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "README.md").write_text("# Widget\nA widget.\n")
    fake_model.script.tool_use("read_file", path="README.md")
    agents = "# AGENTS.md\n\nWidget: run `make test`.\n"
    fake_model.script.tool_use("write_file", path="AGENTS.md", content=agents)
    fake_model.script.text("Wrote AGENTS.md.")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("/init")
        screen = term.wait_for("Allow write_file AGENTS.md?")
        assert all(len(line) <= 80 for line in screen.splitlines())
        assert not (tmp_path / "AGENTS.md").exists()  # asked before it is written
        term.send("1")
        term.wait_for("Wrote AGENTS.md.")
    finally:
        term.close()
    assert (tmp_path / "AGENTS.md").read_text() == agents
    first = fake_model.bodies()[0]["messages"][0]["content"][0]["text"]
    assert first.startswith("Write an AGENTS.md file at the root of this workspace")
    assert "with your tools" in first


def test_copy_sends_the_last_reply_through_osc_52(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("Copy me, «please».")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("/copy")
        term.wait_for("No reply to copy yet.")
        term.type("hello")
        term.wait_for("Copy me, «please».")
        term.wait_idle()
        term.type("/copy")
        # whether it reached a clipboard no terminal says: asked, never "Copied" (issue 56)
        screen = term.wait_for(lambda t: "copies nothing." in " ".join(t.split()))
        flat = " ".join(screen.split())
        assert "Asked the terminal to copy the last reply (18 characters, OSC 52)" in flat
        assert "Copied" not in screen
    finally:
        term.close()
    encoded = base64.b64encode("Copy me, «please».".encode()).decode()
    assert f"\x1b]52;c;{encoded}\x07".encode() in term.raw


def test_btw_answers_beside_a_running_turn_and_stays_out_of_the_history(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    blocks = [{"type": "text", "text": "The long answer, at last."}]
    fake_model.script.add(Reply(blocks, stall_after=4, delay=3.0))  # the turn takes its time
    fake_model.script.text("Forty-two.")  # the side question's answer
    fake_model.script.text("Next answer.")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("a long task")
        term.wait_for("The long")  # the reply has begun, and stalls
        term.type("/btw what is the answer?")
        screen = term.wait_for("↳ btw: Forty-two.")
        assert "working…" in screen  # answered while the turn still runs
        assert "at last" not in screen
        term.wait_for("The long answer, at last.")
        term.wait_idle()
        term.type("next")
        term.wait_for("Next answer.")
    finally:
        term.close()
    turn, aside, following = fake_model.bodies()
    assert aside["tool_choice"] == {"type": "none"}
    assert "what is the answer?" in json.dumps(aside["messages"])
    history = json.dumps(following["messages"])
    assert "what is the answer" not in history
    assert "Forty-two" not in history
    assert len(following["messages"]) == len(turn["messages"]) + 2


def test_vim_mode_edits_the_input_with_vi_keys_and_vim_turns_it_off(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    user_settings(fake_env, {"vim_mode": True})
    fake_model.script.text("First.").text("Second.")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.send("world")
        term.wait_for("you> world")
        for keys in (ESC, "0", "i", "hello "):  # normal mode, line start, insert
            term.send(keys)
            time.sleep(0.2)
        term.wait_for("you> hello world")
        term.send(ENTER)
        term.wait_for("First.")
        term.wait_idle()
        term.type("/vim")
        term.wait_for("Vim mode off.")
        for keys in ("abc", ESC, "0", "i"):  # no normal mode now: 0 and i are typed
            term.send(keys)
            time.sleep(0.2)
        term.wait_for("you> abc0i")
        term.send(ENTER)
        term.wait_for("Second.")
    finally:
        term.close()
    first, second = fake_model.bodies()
    assert first["messages"][-1]["content"][0]["text"] == "hello world"
    assert second["messages"][-1]["content"][0]["text"] == "abc0i"


def test_in_vim_mode_the_first_esc_of_a_turn_leaves_insert_mode_the_next_stops_it(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    user_settings(fake_env, {"vim_mode": True})
    blocks = [{"type": "text", "text": "A slow reply that goes on."}]
    fake_model.script.add(Reply(blocks, stall_after=4, delay=20.0))
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("go")
        term.wait_for("A slow")
        term.send(ESC)
        time.sleep(1.0)
        term.pump()
        assert "working…" in term.text()  # normal mode now; the turn goes on
        assert "interrupted" not in term.text()
        term.send(ESC)
        term.wait_for("⏹ interrupted")
    finally:
        term.close()


def test_ctrl_g_writes_the_prompt_in_the_editor(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    editor = tmp_path / "editor.sh"
    # the editor gets the draft in a file and leaves the prompt there, as an editor would
    editor.write_text('#!/bin/sh\nprintf "%s\\nwritten in the editor\\n" "$(cat "$1")" > "$1"\n')
    editor.chmod(0o755)
    fake_model.script.text("Got it.")
    env = {**fake_env, "EDITOR": str(editor)}
    env.pop("VISUAL", None)
    term = ChatTerm(env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.send("a draft")
        term.wait_for("you> a draft")
        term.send(CTRL_G)
        screen = term.wait_for("written in the editor")
        assert "you> a draft" in screen  # back in the input box, to edit or send
        assert fake_model.bodies() == []  # not sent by itself
        term.send(ENTER)
        term.wait_for("Got it.")
    finally:
        term.close()
    (body,) = fake_model.bodies()
    assert body["messages"][0]["content"][0]["text"] == "a draft\nwritten in the editor"
