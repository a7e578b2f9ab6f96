"""`agent plugin marketplace add|list|update|remove` through the real CLI: a marketplace from a
local git repository (a file:// URL, cloned with git under the user's config folder) and one
from a folder (read where it is); nothing is written into the workspace; bad sources are one
line, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.plugin_store_support import (
    agent,
    index,
    one_line_error,
    plugin_env,
    store_root,
    team_market,
)
from tests.plugin_fixtures import (
    MARKETPLACE,
    entry,
    git_commit,
    marketplace,
    skills_only_plugin,
)


def _workspace(tmp_path: Path) -> Path:
    workspace = tmp_path / "work"
    workspace.mkdir()
    return workspace


def test_a_git_marketplace_is_cloned_listed_updated_and_removed(tmp_path: Path):
    env, work = plugin_env(tmp_path), _workspace(tmp_path)
    market = team_market(tmp_path / "market")
    url = market.as_uri()

    added = agent(env, work, "plugin", "marketplace", "add", url)
    assert added.returncode == 0, added.stderr
    assert added.stdout == "added marketplace team (cloned, 1 plugin)\n"
    clone = store_root(env) / "marketplaces" / "team"
    assert (clone / ".git").is_dir()
    assert (clone / "plugins" / "kit" / "commands" / "hello.md").is_file()
    assert list(work.iterdir()) == []  # the store is the user's, never the workspace's
    assert sorted(p.name for p in clone.parent.iterdir()) == ["team"]  # no half-made clone left

    listed = agent(env, work, "plugin", "marketplace", "list", "--json")
    (row,) = json.loads(listed.stdout)
    assert (row["name"], row["kind"], row["url"], row["path"]) == ("team", "git", url, str(clone))

    skills_only_plugin(market / "plugins" / "writing")
    plugins = [entry("kit", "./plugins/kit"), entry("writing", "./plugins/writing")]
    marketplace(market, "team", plugins)
    new_commit = git_commit(market, "writing")
    updated = agent(env, work, "plugin", "marketplace", "update", "team")
    assert updated.returncode == 0, updated.stderr
    assert updated.stdout.endswith(f" -> {new_commit[:12]} (2 plugins)\n")
    assert (clone / "plugins" / "writing" / "skills" / "draft" / "SKILL.md").is_file()
    again = agent(env, work, "plugin", "marketplace", "update")
    assert again.stdout == f"team: up to date at {new_commit[:12]} (2 plugins)\n"
    installed = agent(env, work, "plugin", "install", "writing@team", "--yes")
    assert installed.returncode == 0, installed.stderr  # the updated catalog is the one read

    removed = agent(env, work, "plugin", "marketplace", "remove", "team")
    assert removed.returncode == 0, removed.stderr
    assert "still installed from it: writing@team" in removed.stdout
    assert not clone.exists()
    assert index(env)["marketplaces"] == {}
    assert agent(env, work, "plugin", "marketplace", "list").stdout.startswith("No marketplaces")


def test_a_folder_marketplace_is_read_where_it_is(tmp_path: Path):
    env, work = plugin_env(tmp_path), _workspace(tmp_path)
    folder = tmp_path / "shelf"
    skills_only_plugin(folder / "writing")
    marketplace(folder, "shelf", [entry("writing", "./writing")])

    added = agent(env, work, "plugin", "marketplace", "add", str(folder))
    assert added.returncode == 0, added.stderr
    assert added.stdout == "added marketplace shelf (linked folder, 1 plugin)\n"
    assert index(env)["marketplaces"]["shelf"]["path"] == str(folder.resolve())
    assert not (store_root(env) / "marketplaces" / "shelf").exists()  # linked, not copied

    skills_only_plugin(folder / "second", skills=("plan",))
    marketplace(folder, "shelf", [entry("writing", "./writing"), entry("second", "./second")])
    updated = agent(env, work, "plugin", "marketplace", "update", "shelf")
    assert updated.stdout == "shelf: a folder, read where it is (2 plugins)\n"
    installed = agent(env, work, "plugin", "install", "second@shelf", "--yes")
    assert installed.returncode == 0, installed.stderr

    assert agent(env, work, "plugin", "marketplace", "remove", "shelf").returncode == 0
    assert (folder / MARKETPLACE).is_file()  # the user's folder is left alone


def test_bad_sources_and_names_are_one_line(tmp_path: Path):
    env, work = plugin_env(tmp_path), _workspace(tmp_path)
    plain = tmp_path / "plain"
    plain.mkdir()
    reserved = marketplace(tmp_path / "fake", "claude-plugins-official", [])
    broken = tmp_path / "broken"
    (broken / ".claude-plugin").mkdir(parents=True)
    (broken / MARKETPLACE).write_text('{"name": "broken" "owner": {}}')

    def add(source: str, code: int) -> str:
        return one_line_error(agent(env, work, "plugin", "marketplace", "add", source), code)

    assert add("./nowhere", 2) == "agent: ./nowhere: not a folder, a git URL or owner/repo"
    assert "not a marketplace" in add(str(plain), 2)
    assert "reserved for Anthropic" in add(str(reserved), 2)
    assert "not valid JSON" in add(str(broken), 2)
    missing = add((tmp_path / "no-repo").as_uri(), 1)  # well formed; git could not clone it
    assert missing.startswith("agent: git clone: ")
    assert not any((store_root(env) / "marketplaces").iterdir())  # nothing half-made left

    team = team_market(tmp_path / "market").as_uri()
    assert agent(env, work, "plugin", "marketplace", "add", team).returncode == 0
    assert "already added" in add(team, 2)
    for verb in ("update", "remove"):
        line = one_line_error(agent(env, work, "plugin", "marketplace", verb, "nope"), 2)
        assert line == "agent: no marketplace 'nope' (see `agent plugin marketplace list`)"
