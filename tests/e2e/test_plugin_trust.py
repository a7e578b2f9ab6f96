"""A workspace's own `.agent/settings.json` enabling a plugin is a widening: until `agent trust`
the port "plugin_bundles" does not answer it (asked as a run asks it, in a fresh process) and
`agent plugin list` says it is pending trust; trusted, it loads. The run's variables
(`AGENT_PLUGINS_ON`, `AGENT_PLUGINS_OFF`) and a plugin enabled but not installed, likewise
through the port."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.plugin_store_support import (
    agent,
    ask_port,
    config,
    plugin_env,
    store_root,
    team_market,
)
from tests.fake_model import FakeAnthropic


def _installed_not_enabled(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """kit@team installed and agreed to, then switched off in the user's settings."""
    env = plugin_env(tmp_path)
    work = tmp_path / "cloned-repo"
    work.mkdir()
    market = team_market(tmp_path / "market")
    assert agent(env, work, "plugin", "marketplace", "add", market.as_uri()).returncode == 0
    assert agent(env, work, "plugin", "install", "kit@team", "--yes").returncode == 0
    assert agent(env, work, "plugin", "disable", "kit@team").returncode == 0
    return env, work


def test_a_workspace_enabling_a_plugin_waits_for_trust(tmp_path: Path):
    env, work = _installed_not_enabled(tmp_path)
    enabled = agent(env, work, "plugin", "enable", "kit@team", "--scope", "project")
    assert enabled.stdout.splitlines() == [
        "enabled kit@team (project)",
        "this workspace is not trusted: its plugins apply once you run `agent trust`",
    ]
    enabling = {"plugins": {"enabled": {"kit@team": True}}}
    assert json.loads((work / ".agent" / "settings.json").read_text()) == enabling

    untrusted = ask_port(env, work)
    assert untrusted["bundles"] == []
    assert "the plugins extension are ignored until `agent trust`" in untrusted["stderr"]
    (row,) = json.loads(agent(env, work, "plugin", "list", "--json").stdout)
    assert row["state"] == "pending trust (the workspace enables it: `agent trust`)"
    assert (row["user"], row["project"]) == (False, True)

    trusted = agent(env, work, "trust")
    assert trusted.returncode == 0, trusted.stderr
    answer = ask_port(env, work)
    assert [(b["name"], b["scope"]) for b in answer["bundles"]] == [("kit", "project")]
    assert answer["bundles"][0]["hooks"] == ["PreToolUse"]
    assert (store_root(env) / "data" / "kit@team").is_dir()  # ${CLAUDE_PLUGIN_DATA}, made
    (row,) = json.loads(agent(env, work, "plugin", "list", "--json").stdout)
    assert row["state"] == "enabled"

    assert agent(env, work, "trust", "--revoke").returncode == 0
    assert ask_port(env, work)["bundles"] == []


def test_the_run_variables_enable_and_leave_out_plugins(tmp_path: Path):
    env, work = _installed_not_enabled(tmp_path)
    on = ask_port(env, work, AGENT_PLUGINS_ON="kit@team")
    assert [(b["name"], b["scope"]) for b in on["bundles"]] == [("kit", "session")]
    assert agent(env, work, "plugin", "enable", "kit").returncode == 0
    assert [b["name"] for b in ask_port(env, work)["bundles"]] == ["kit"]
    for off in ("kit", "kit@team", "*", "other,kit"):
        assert ask_port(env, work, AGENT_PLUGINS_OFF=off)["bundles"] == [], off
    assert len(ask_port(env, work, AGENT_PLUGINS_OFF="other")["bundles"]) == 1


def test_a_plugin_enabled_but_not_installed_is_one_warning(
    tmp_path: Path, fake_model: FakeAnthropic, fake_env: dict[str, str]
):
    env = {**plugin_env(tmp_path), "ANTHROPIC_BASE_URL": fake_env["ANTHROPIC_BASE_URL"]}
    env["ANTHROPIC_API_KEY"] = fake_env["ANTHROPIC_API_KEY"]
    work = tmp_path / "work"
    work.mkdir()
    user = config(env)
    user.mkdir(parents=True)
    (user / "settings.json").write_text(json.dumps({"plugins": {"enabled": {"gone@team": True}}}))
    answer = ask_port(env, work)
    assert answer["bundles"] == []
    assert answer["warnings"] == [
        "plugin gone@team: enabled but not installed: `agent plugin install gone@team`"
    ]
    (row,) = json.loads(agent(env, work, "plugin", "list", "--json").stdout)
    assert row["state"] == "not installed (`agent plugin install gone@team`)"
    fake_model.script.text("done")
    run = agent(env, work, "run", "-p", "hi")  # a run says it once, and goes on
    assert run.returncode == 0, run.stderr
    said = [line for line in run.stderr.splitlines() if "gone@team" in line]
    assert len(said) == 1, run.stderr
    assert said[0].endswith("`agent plugin install gone@team`")


def test_a_bad_enabled_key_is_exit_2_naming_it(tmp_path: Path):
    env = plugin_env(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    config(env).mkdir(parents=True)
    (config(env) / "settings.json").write_text(json.dumps({"plugins": {"enabled": {"kit": 1}}}))
    proc = agent(env, work, "run", "-p", "hi")
    assert proc.returncode == 2
    assert "plugins.enabled" in proc.stderr
    assert "Traceback" not in proc.stderr
