"""The acceptance's corpus half, end to end: two real corpus plugins together carry commands,
agent types, skills, hooks and an MCP server (hookify: commands, an agent, a skill, four hooks
run with `python3`; nixtla-baseline-lab: commands, an agent, a skill, an MCP server run with
`python` on its bundled script). Copied into tmp_path (never into the project) as one local git
marketplace added by `file://` URL, installed with `--yes`, listed, used by `agent run` against
the fake server, then uninstalled. Corpus code never runs: `python` and `python3` first on the
agent's PATH are shims that only log their argv and $CLAUDE_PLUGIN_ROOT (the agent itself runs
on sys.executable by absolute path). Skipped when ../shared/plugin-corpus is absent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import REPO
from tests.e2e.plugin_store_support import agent, config, settings, store_root
from tests.fake_model import FakeAnthropic, Script, system_contains
from tests.plugin_fixtures import entry, git_commit, marketplace, tool_results, write_tree
from tests.waiting import wait_until

CANDIDATES = [
    REPO.parent / "shared" / "plugin-corpus",
    REPO.parent.parent / "shared" / "plugin-corpus",
]
CORPUS = next((c for c in CANDIDATES if (c / "MANIFEST.tsv").is_file()), None)
pytestmark = pytest.mark.skipif(CORPUS is None, reason="../shared/plugin-corpus is absent")

HOOKIFY = "anthropics__claude-code/plugins/hookify"
NIXTLA = "jeremylongshore__plugins-nixtla/005-plugins/nixtla-baseline-lab"
ANALYST = "You are a conversation analysis specialist"
MCP_LINE = "python '${CLAUDE_PLUGIN_ROOT}/scripts/nixtla_baseline_mcp.py'"
EVENTS = ("pretooluse", "posttooluse", "stop", "userpromptsubmit")
SERVER = "plugin_nixtla-baseline-lab_nixtla-baseline-mcp"
ANALYZER, REVIEW = "hookify:conversation-analyzer", "nixtla-baseline-lab:nixtla-baseline-review"
COMMANDS = {
    *("hookify:configure", "hookify:help", "hookify:hookify", "hookify:list"),
    *("nixtla-baseline-lab:nixtla-baseline-m4", "nixtla-baseline-lab:nixtla-baseline-setup"),
}
# records who ran it and with what, then stops: no corpus file is ever read or executed
SHIM = (
    '#!/bin/sh\nprintf \'%s|%s|%s\\n\' "$(basename "$0")" "$*" "$CLAUDE_PLUGIN_ROOT" >> "{log}"\n'
)


def corpus_market(tmp_path: Path) -> str:
    """Both corpus folders copied into a fresh git marketplace `corpus`; its file:// URL."""
    assert CORPUS is not None
    root = tmp_path / "market"
    for local, name in ((HOOKIFY, "hookify"), (NIXTLA, "nixtla-baseline-lab")):
        shutil.copytree(CORPUS / local, root / "plugins" / name)
    marketplace(root, "corpus", [
        entry("hookify", "./plugins/hookify"),
        entry("nixtla-baseline-lab", "./plugins/nixtla-baseline-lab"),
    ])  # fmt: skip
    git_commit(root, "two corpus plugins")
    return root.as_uri()


def shimmed_env(fake_env: dict[str, str], tmp_path: Path) -> tuple[dict[str, str], Path]:
    """The agent's environment with `python` and `python3` shims first on PATH; their log."""
    log = tmp_path / "shim.log"
    shims = tmp_path / "shims"
    script = SHIM.format(log=log)
    write_tree(shims, {"python": script, "python3": script}, executable=["python", "python3"])
    env = {
        **fake_env,
        "PYTHONPATH": str(REPO),
        "AGENT_LSP_BUILTIN": "0",
        "PATH": f"{shims}:{fake_env['PATH']}",
    }
    config(env).mkdir(parents=True, exist_ok=True)
    (config(env) / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["bash(echo *)"]}})
    )
    return env, log


def ok(proc: Any) -> str:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return str(proc.stdout)


def listed(env: dict[str, str], work: Path, what: str) -> dict[str, str]:
    """`agent <what> --json`: each item's name -> the plugin it says it comes from."""
    return {row["name"]: row["plugin"] for row in json.loads(ok(agent(env, work, what, "--json")))}


def shim_records(log: Path) -> list[tuple[str, str, str]]:
    """(program, argv, CLAUDE_PLUGIN_ROOT) per shim call; each line must be one of its records:
    whatever ran `python` or `python3` reached the shim, never an interpreter."""
    records = [line.split("|") for line in log.read_text(encoding="utf-8").splitlines()]
    assert all(len(r) == 3 and r[0] in ("python", "python3") for r in records), records
    return [(program, argv, root) for program, argv, root in records]


def install_and_list(env: dict[str, str], work: Path, tmp_path: Path) -> None:
    """Consent names what each runs; the listings name each item's plugin."""
    ok(agent(env, work, "plugin", "marketplace", "add", corpus_market(tmp_path)))
    hookify = ok(agent(env, work, "plugin", "install", "hookify@corpus", "--yes"))
    nixtla = ok(agent(env, work, "plugin", "install", "nixtla-baseline-lab@corpus", "--yes"))
    for event in EVENTS:
        assert f"python3 ${{CLAUDE_PLUGIN_ROOT}}/hooks/{event}.py" in hookify
    assert f"mcp server nixtla-baseline-mcp: {MCP_LINE}" in nixtla

    commands = listed(env, work, "commands")
    assert {c: plugin for c, plugin in commands.items() if plugin} == {
        c: c.split(":")[0] for c in COMMANDS
    }
    agents = listed(env, work, "agents")
    assert agents[ANALYZER] == "hookify"
    assert agents["nixtla-baseline-lab:nixtla-baseline-analyst"] == "nixtla-baseline-lab"
    skills = listed(env, work, "skills")
    assert skills == {"hookify:writing-rules": "hookify", REVIEW: "nixtla-baseline-lab"}
    servers = ok(agent(env, work, "mcp", "list"))
    assert f"{SERVER}  failed  0 tools  (plugin nixtla-baseline-lab)" in servers


def use_both(fake_model: FakeAnthropic, env: dict[str, str], work: Path) -> None:
    """A plugin skill, a plugin agent type and a bash command (hookify's hooks around it); the
    MCP server's failed start is one warning line."""
    agent_log = work / "logs" / "agent.log"

    def once_the_server_failed(body: dict[str, Any]) -> Script:
        # its servers start once the first reply streams: the model waits for the shim's end
        wait_until(lambda: f"{SERVER} did not start" in agent_log.read_text(), what="MCP failure")
        return Script().tool_use("task", description="analyse", prompt="go", agent_type=ANALYZER)

    fake_model.route(system_contains(ANALYST)).text('{"conclusion": "none", "confidence": "high"}')
    script = fake_model.script
    script.tool_use("skill", name=REVIEW, file="resources/METRIC_INTERPRETATION.md")
    script.respond(once_the_server_failed)
    script.tool_use("bash", command="echo hooked").text("Used.")
    run = agent(env, work, "run", "-p", "use both plugins")
    assert run.returncode == 0, run.stderr
    (warning,) = [line for line in run.stderr.splitlines() if "WARNING" in line]
    assert warning.startswith(f"agent: WARNING: mcp server {SERVER} did not start: ")
    review, analysed, echoed = tool_results(fake_model.bodies()[-1])[-3:]
    assert "Sort by MASE" in review  # the skill's resource, read beside its SKILL.md
    assert "none" in analysed
    assert "hooked" in echoed


def test_two_corpus_plugins_installed_used_and_uninstalled(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    env, log = shimmed_env(fake_env, tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    install_and_list(env, work, tmp_path)

    fake_model.script.text("Helped.")
    ok(agent(env, work, "run", "-p", "/hookify:help"))
    (helped,) = fake_model.bodies()
    assert "Explain how the hookify plugin works" in json.dumps(helped["messages"])
    use_both(fake_model, env, work)

    installed = store_root(env) / "installed" / "corpus"
    (hookify_root,) = (installed / "hookify").iterdir()
    (nixtla_root,) = (installed / "nixtla-baseline-lab").iterdir()
    records = shim_records(log)
    ran = {(program, argv) for program, argv, _ in records}
    assert {("python3", f"{hookify_root}/hooks/{event}.py") for event in EVENTS} <= ran
    assert ("python", f"{nixtla_root}/scripts/nixtla_baseline_mcp.py") in ran
    roots = {program: {r for p, _, r in records if p == program} for program, _, _ in records}
    assert roots == {"python3": {str(hookify_root)}, "python": {str(nixtla_root)}}
    assert not list(installed.rglob("__pycache__"))  # no corpus module was ever imported

    ok(agent(env, work, "plugin", "uninstall", "hookify@corpus"))
    ok(agent(env, work, "plugin", "uninstall", "nixtla-baseline-lab@corpus"))
    assert not [c for c, plugin in listed(env, work, "commands").items() if plugin]
    assert "@corpus" not in json.dumps(settings(config(env) / "settings.json"))
    assert not installed.exists() or not list(installed.iterdir())
