"""An installed plugin through the real plugins extension (not a test port): `agent commands`,
`agent agents`, `agent skills` and `agent mcp list` list what it bundles and name it (they
used to exit 2 on the `plugins` settings section, then list nothing: the listing's discovery
left out `batch`, which the plugins extension requires); and its MCP server that exits at
once is one warning line of `agent run`, not silence, not a crash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.plugin_store_support import agent, plugin_env
from tests.fake_model import FakeAnthropic, Script
from tests.plugin_fixtures import entry, full_plugin, git_commit, marketplace
from tests.waiting import wait_until

SERVER = "plugin_kit_notes"


def ok(proc: Any) -> str:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return str(proc.stdout)


def listed(env: dict[str, str], work: Path, what: str) -> dict[str, str]:
    """`agent <what> --json`: each item's name -> the plugin it says it comes from."""
    return {row["name"]: row["plugin"] for row in json.loads(ok(agent(env, work, what, "--json")))}


def test_listings_name_an_installed_plugin_and_a_dead_server_is_one_warning(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    market = tmp_path / "market"
    full_plugin(market / "plugins" / "kit", mcp_server={"command": "sh", "args": ["-c", "exit 3"]})
    marketplace(market, "team", [entry("kit", "./plugins/kit")])
    git_commit(market)
    env = {**plugin_env(tmp_path), "ANTHROPIC_BASE_URL": fake_model.base_url}
    env.update(ANTHROPIC_API_KEY=fake_env["ANTHROPIC_API_KEY"], AGENT_LSP_BUILTIN="0")
    work = tmp_path / "work"
    work.mkdir()
    ok(agent(env, work, "plugin", "marketplace", "add", market.as_uri()))
    ok(agent(env, work, "plugin", "install", "kit@team", "--yes"))

    assert listed(env, work, "commands")["kit:hello"] == "kit"
    assert listed(env, work, "agents")["kit:reviewer"] == "kit"
    assert listed(env, work, "skills")["kit:lint"] == "kit"
    assert f"{SERVER}  failed  0 tools  (plugin kit)" in ok(agent(env, work, "mcp", "list"))

    agent_log = work / "logs" / "agent.log"

    def once_it_failed(body: dict[str, Any]) -> Script:
        # servers start once the first reply streams: the model waits until this one has ended
        wait_until(lambda: f"{SERVER} did not start" in agent_log.read_text(), what="its end")
        return Script().text("Done.")

    fake_model.script.tool_use("glob", pattern="*.none").respond(once_it_failed)
    run = agent(env, work, "run", "-p", "look around")
    assert run.returncode == 0, run.stderr
    said = [line for line in run.stderr.splitlines() if SERVER in line]
    assert len(said) == 1, run.stderr
    assert said[0].startswith(f"agent: WARNING: mcp server {SERVER} did not start: "), said
