"""Episodic memory in `agent chat`: /remember writes an episode through the tool-less generator,
/memory lists it, the side panel shows it, and leaving waits for an episode still being written."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.helpers import run_agent
from tests.e2e.memory_support import episode_json, generator_bodies, generator_route, user_text
from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic

TITLE = "Fix crash on empty input in parser"


def test_remember_writes_an_episode_and_memory_lists_it(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("Guarded the empty string.")
    generator_route(fake_model).text(episode_json(TITLE))
    term = ChatTerm(fake_env, tmp_path, scrollback=True)
    try:
        term.wait_for("you>")
        term.type("/help all")
        term.wait_for("attach a file to the prompt")  # /help's last line; /remember's above
        assert any("write an episode of this session now" in line for line in term.scrollback())
        term.type("/memory")
        term.wait_for("No episodes yet.")
        term.type("fix the parse crash on empty input")
        term.wait_for("Guarded the empty string.")
        term.wait_idle()
        term.type("/remember")
        term.wait_for("Writing an episode of this session in the background")
        term.wait_for(f"◆ episode saved: {TITLE}")
        (generator,) = generator_bodies(fake_model)
        assert "tools" not in generator  # a helper call carries no tools (SPEC §16)
        assert "fix the parse crash on empty input" in user_text(generator)
        assert "Guarded the empty string." in json.dumps(generator["messages"])
        screen = term.wait_for(f"* {TITLE}")  # the side panel's Notes section (NO_COLOR marks)
        assert "episode · ep-" in screen
        term.type("/memory")
        screen = term.wait_for(f"{TITLE}  (1 open)")  # the listing line, not the saved notice
        term.type("/remember")
        term.wait_for("Nothing new to remember since the last episode.")
        term.type("/exit")
        term.finish()
    finally:
        term.close()
    assert len(generator_bodies(fake_model)) == 1
    listed = run_agent(fake_env, tmp_path, "memory", "list", "--json")
    assert [e["title"] for e in json.loads(listed.stdout)] == [TITLE]


def test_leaving_waits_for_the_episode_being_written(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("ok")
    generator_route(fake_model).text(episode_json(TITLE), delay=1)
    # stdin ends right after /remember: the REPL exits while the generator is still replying
    proc = run_agent(fake_env, tmp_path, "chat", stdin="fix the parser\n/remember\n")
    assert proc.returncode == 0, proc.stderr
    assert f"◆ episode saved: {TITLE}" in proc.stdout
    assert len(generator_bodies(fake_model)) == 1
    listed = run_agent(fake_env, tmp_path, "memory", "list", "--json")
    assert [e["title"] for e in json.loads(listed.stdout)] == [TITLE]
