"""Background sessions from `agent chat` (issue 55 items 1 and 6): `/bg PROMPT` in the real chat,
in a pseudo-terminal, against the fake model server, starts a background session that goes on
with this conversation (a fork of the session: the chat keeps its own), with PROMPT as its next
prompt; it says the session's name and how to attach; and when that session waits for an
approval, the chat's status bar counts it. `/bg` alone carries on with the last prompt typed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.files.paths import Paths
from agent_cli.ext.background.chat import CARRY_ON
from agent_cli.session.resume import fold, session_files
from tests.e2e import test_background
from tests.e2e.pty_screen import ChatTerm
from tests.e2e.test_background import record, until_state
from tests.fake_model import FakeAnthropic

WAIT_S = 60.0  # the background session's process starts the whole agent
bg_env = test_background.bg_env  # a registry of the test's own, its sessions killed after
BG_PROMPT = "write out.txt please"


def texts(messages: list[dict[str, Any]]) -> list[str]:
    out = []
    for m in messages:
        content = m["content"]
        out.append(content if isinstance(content, str) else content[0].get("text", ""))
    return out


@pytest.mark.timeout(180)
def test_bg_in_chat_forks_the_conversation_and_the_bar_counts_it_waiting(
    fake_model: FakeAnthropic, bg_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("planned: a greeting in out.txt")
    background = fake_model.route(lambda body: BG_PROMPT in json.dumps(body["messages"]))
    background.tool_use("write_file", path="out.txt", content="hi")
    carried = fake_model.route(lambda body: CARRY_ON in json.dumps(body["messages"]))
    carried.text("carried on")
    term = ChatTerm(bg_env, tmp_path, columns=120, lines=30)
    try:
        term.wait_for("you>")
        term.type("plan the greeting")
        term.wait_for(lambda text: "planned: a greeting" in text and "working" not in text)
        term.type(f"/bg {BG_PROMPT}")
        term.wait_for("agent attach write-out-txt")
        assert "write-out-txt: this conversation goes on in the background" in term.text()
        waiting = until_state(bg_env, "write-out-txt", "waiting: approval")
        bar = term.wait_for("1 bg session waits", timeout=WAIT_S)
        assert "1 bg session waits" in bar.splitlines()[-2]  # the status bar, above the input
        term.type("/bg")  # no prompt: it carries on with the last one typed
        term.wait_for("agent attach plan-greeting")
        assert 'carries on with your last request, "plan the greeting"' in term.text()
        until_state(bg_env, "plan-greeting", "done")
    finally:
        term.close()
    # the background session's request: this conversation, then the prompt /bg gave it
    (asked,) = [b for b in fake_model.bodies() if BG_PROMPT in json.dumps(b["messages"])]
    assert texts(asked["messages"]) == [
        "plan the greeting",
        "planned: a greeting in out.txt",
        BG_PROMPT,
    ]
    paths = Paths(tmp_path)
    forks = [waiting["session_id"], record(bg_env, "plan-greeting")["session_id"]]
    (chat,) = {p.stem for p in session_files(paths)} - set(forks)
    for fork in forks:
        first = json.loads(paths.transcript(fork).read_text().splitlines()[0])
        assert first["forked_from"] == chat
    assert texts(fold(paths.transcript(chat)).messages) == texts(asked["messages"])[:2]
    (went_on,) = [b for b in fake_model.bodies() if CARRY_ON in json.dumps(b["messages"])]
    assert texts(went_on["messages"]) == [*texts(asked["messages"])[:2], CARRY_ON]
