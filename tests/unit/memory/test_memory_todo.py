"""Issue 8's first acceptance point, end to end through the CLI and the real `todo_write`:
a session whose todo list reaches all completed produces a tool-less generator request holding
the conversation since the last episode; the scripted episode is in `agent memory list --json`;
the next `agent run` carries its title in the system prompt; `recall {file}` finds it.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.helpers import last_user_blocks
from tests.e2e.memory_support import (
    TODOS_DONE,
    TODOS_OPEN,
    episode_json,
    generator_bodies,
    generator_route,
)
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli

TITLE = "Fix crash on empty input in parser"


def test_completed_todos_become_an_episode_the_next_session_sees(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "x.py").write_text("def parse(text):\n    return text[0]  # mark-31\n")
    fake_model.script.tool_use("todo_write", todos=TODOS_OPEN)
    fake_model.script.tool_use("read_file", path="src/x.py")
    fake_model.script.tool_use("todo_write", todos=TODOS_DONE)
    fake_model.script.text("Parser fixed.")
    generator_route(fake_model).text(episode_json(title=TITLE))

    proc = run_cli(fake_env, tmp_path, "run", "-p", "fix the parser crash in src/x.py")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Parser fixed."

    (generator,) = generator_bodies(fake_model)
    assert "tools" not in generator  # a helper call carries no tools (SPEC §16)
    text = last_user_blocks(generator)[0]["text"]
    conversation = text.split("<conversation>")[1]
    assert "fix the parser crash in src/x.py" in conversation
    assert "Add a regression test" in conversation
    assert "mark-31" in conversation  # the read_file result, shortened
    assert '"completed"' in conversation  # the completing todo_write is included

    listing = run_cli(fake_env, tmp_path, "memory", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    (episode,) = json.loads(listing.stdout)
    assert episode["title"] == TITLE

    fake_model.script.tool_use("recall", file="src/x.py").text("Found it.")
    seen = len(fake_model.bodies())
    proc = run_cli(fake_env, tmp_path, "run", "-p", "what did we do on the parser?")
    assert proc.returncode == 0, proc.stderr
    first, second = fake_model.bodies()[seen:]
    assert TITLE in first["system"][0]["text"]
    (hit,) = last_user_blocks(second)
    assert hit["type"] == "tool_result"
    assert episode["id"] in hit["content"]
    assert TITLE in hit["content"]
