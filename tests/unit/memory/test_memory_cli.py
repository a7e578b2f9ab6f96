"""Episodic memory through the real CLI: `agent run` writes an episode in the background and
waits for it, `agent memory` lists/shows/searches it, the next session's system prompt carries
it, and the `recall` tool finds it.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.helpers import last_user_blocks
from tests.e2e.memory_support import episode_json, generator_bodies, generator_route
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli

TITLE = "Fix crash on empty input in parser"


def settings(workspace: Path, **memory: object) -> None:
    (workspace / ".agent").mkdir(exist_ok=True)
    data: dict[str, object] = {"memory": {"episode_rounds": 1, **memory}}
    (workspace / ".agent" / "settings.json").write_text(json.dumps(data))


def first_session(fake_model: FakeAnthropic, env: dict[str, str], workspace: Path) -> dict:
    """One `agent run` whose single tool round meets the length threshold (episode_rounds=1)."""
    settings(workspace)
    (workspace / "src").mkdir()
    (workspace / "src" / "x.py").write_text("def parse(text):\n    return text[0]\n")
    fake_model.script.tool_use("read_file", path="src/x.py").text("It crashes on ''.")
    generator_route(fake_model).text(episode_json(), delay=1)
    proc = run_cli(env, workspace, "run", "-p", "why does parse crash?")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "It crashes on ''."
    listing = run_cli(env, workspace, "memory", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    (episode,) = json.loads(listing.stdout)
    return episode


def test_run_writes_episode_and_memory_commands_show_it(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    episode = first_session(fake_model, fake_env, tmp_path)
    assert {"id", "title", "core_problem", "open_issues", "created"} <= set(episode)
    assert episode["title"] == TITLE
    assert episode["open_issues"] == ["Unicode input is untested"]
    (generator,) = generator_bodies(fake_model)
    assert "tools" not in generator
    assert "why does parse crash?" in last_user_blocks(generator)[0]["text"]

    shown = run_cli(fake_env, tmp_path, "memory", "show", episode["id"][:-2])
    assert shown.returncode == 0, shown.stderr
    assert TITLE in shown.stdout
    assert "src/x.py (parse): guard empty input" in shown.stdout
    assert "src/x.py#L10-L24" in shown.stdout
    found = run_cli(fake_env, tmp_path, "memory", "search", "empty AST", "--json")
    assert found.returncode == 0, found.stderr
    assert [e["id"] for e in json.loads(found.stdout)] == [episode["id"]]
    plain = run_cli(fake_env, tmp_path, "memory")
    assert episode["id"] in plain.stdout
    missing = run_cli(fake_env, tmp_path, "memory", "show", "ep-nope")
    assert missing.returncode == 2
    assert "No episode matches 'ep-nope'" in missing.stderr
    transcript = next((tmp_path / ".transcripts").glob("*.jsonl")).read_text()
    assert '"type":"episode"' in transcript


def test_next_session_prompt_carries_it_and_recall_finds_it(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    episode = first_session(fake_model, fake_env, tmp_path)
    settings(tmp_path, episode_rounds=100)
    fake_model.script.tool_use("recall", file="src/x.py")
    fake_model.script.tool_use("recall", query="unicode")
    fake_model.script.text("I remember.")
    seen = len(fake_model.bodies())
    proc = run_cli(fake_env, tmp_path, "run", "-p", "what did we do last time?")
    assert proc.returncode == 0, proc.stderr
    first, second, third = fake_model.bodies()[seen:]
    system = first["system"][0]["text"]
    assert "reference only" in system
    assert f"[{episode['id']}] {TITLE}" in system
    assert "open: Unicode input is untested" in system
    assert "recall" in [t["name"] for t in first["tools"]]
    (by_file,) = last_user_blocks(second)
    assert f"[episode {episode['id']}] {TITLE}" in by_file["content"]
    assert "files: src/x.py" in by_file["content"]
    (by_query,) = last_user_blocks(third)
    assert episode["id"] in by_query["content"]


def test_recall_without_memory_and_with_bad_input(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("recall", file="src/none.py")
    fake_model.script.tool_use("recall")
    fake_model.script.text("nothing")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "remember anything?")
    assert proc.returncode == 0, proc.stderr
    _, second, third = fake_model.bodies()
    assert last_user_blocks(second)[0]["content"] == "Nothing in memory matches that."
    bad = last_user_blocks(third)[0]
    assert bad["is_error"] is True
    assert "give a query, a file, or both" in bad["content"]
    assert not (tmp_path / "notes" / "index.sqlite3").exists()  # reads create nothing
    listing = run_cli(fake_env, tmp_path, "memory", "list")
    assert listing.stdout.strip() == "No episodes yet."


def test_run_gives_up_waiting_after_background_wait_s(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "settings.json").write_text(
        json.dumps({"background_wait_s": 0.5, "memory": {"episode_rounds": 1}})
    )
    (tmp_path / "a.txt").write_text("a")
    fake_model.script.tool_use("read_file", path="a.txt").text("read it")
    generator_route(fake_model).text(episode_json(), delay=5)
    proc = run_cli(fake_env, tmp_path, "run", "-p", "read a.txt")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "read it"
    assert "did not finish within 0.5 s" in proc.stderr
    listing = run_cli(fake_env, tmp_path, "memory", "list", "--json")
    assert json.loads(listing.stdout) == []
