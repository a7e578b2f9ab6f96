"""Aliases resolve through settings a user can point at any endpoint's names (issue 52): a
subagent type's `model: haiku`, `--model opus` and the `model` setting reach the endpoint as
the names the user gave, the ANTHROPIC_DEFAULT_*_MODEL variables over the settings files."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.helpers import run_agent
from tests.fake_model import FakeAnthropic, system_contains

QUICK_BODY = "You answer in one word."
QUICK = "---\nname: quick\ndescription: One word.\nmodel: haiku\n---\n" + QUICK_BODY + "\n"


def test_a_subagent_types_haiku_is_the_local_servers_model(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "quick.md").write_text(QUICK)
    fake_model.route(system_contains(QUICK_BODY)).text('{"conclusion": "yes"}')
    fake_model.script.tool_use("task", description="ask", prompt="yes?", agent_type="quick")
    fake_model.script.text("done")
    settings = tmp_path / "home" / ".config" / "agent"
    settings.mkdir(parents=True)
    aliases = {"model": "big", "model_aliases": {"big": "qwen3-coder:30b"}}
    (settings / "settings.json").write_text(json.dumps(aliases))
    env = {**fake_env, "ANTHROPIC_DEFAULT_HAIKU_MODEL": "qwen3:4b"}
    proc = run_agent(env, tmp_path, "run", "-p", "delegate")
    assert proc.returncode == 0, proc.stderr
    bodies = fake_model.bodies()
    child = [b["model"] for b in bodies if system_contains(QUICK_BODY)(b)]
    parent = [b["model"] for b in bodies if not system_contains(QUICK_BODY)(b)]
    assert child == ["qwen3:4b"]
    assert parent == ["qwen3-coder:30b", "qwen3-coder:30b"]


def test_model_flag_takes_an_alias(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("hi")
    proc = run_agent(fake_env, tmp_path, "run", "--model", "opus", "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert [b["model"] for b in fake_model.bodies()] == ["claude-opus-4-6"]
