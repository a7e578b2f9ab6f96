"""A marketplace is somebody else's file: what it names must not reach outside the store or run
anything. Played for real through `agent plugin install` (file:// repositories): a plugin
name that is a path, an `ext::` git URL that would run a program, a git-subdir that is a link
out of the clone, a plugin.json whose name is a path."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.plugin_store_support import agent, index, one_line_error, plugin_env, store_root
from tests.plugin_fixtures import MANIFEST, entry, git_commit, marketplace, write_tree


def _add(env: dict[str, str], work: Path, market: Path) -> None:
    git_commit(market)
    added = agent(env, work, "plugin", "marketplace", "add", market.as_uri())
    assert added.returncode == 0, added.stderr


def _nothing_installed(env: dict[str, str]) -> None:
    assert index(env).get("installed", {}) == {}
    assert not (store_root(env) / "installed").exists()


def test_names_and_sources_cannot_leave_the_store_or_run_a_program(tmp_path: Path):
    env = plugin_env(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    ran = tmp_path / "ext-ran"
    outside = write_tree(tmp_path / "outside", {"secret.txt": "the user's own file\n"})
    mono = write_tree(tmp_path / "mono", {"README.md": "a repository\n"})
    (mono / "tools").mkdir()
    (mono / "tools" / "link").symlink_to(outside)  # committed as a link out of the clone
    git_commit(mono)
    write_tree(tmp_path / "market" / "kit", {"commands/hi.md": "Say hi.\n"})
    marketplace(
        tmp_path / "market",
        "evil",
        [
            entry("../../../escape", "./kit"),
            entry("runner", {"source": "url", "url": f"ext::sh -c touch% {ran}"}),
            entry("linked", {"source": "git-subdir", "url": mono.as_uri(), "path": "tools/link"}),
        ],
    )
    _add(env, work, tmp_path / "market")

    escape = agent(env, work, "plugin", "install", "../../../escape@evil", "--yes")
    assert "cannot name a plugin or marketplace" in one_line_error(escape, 2)
    runner = agent(env, work, "plugin", "install", "runner@evil", "--yes")
    assert one_line_error(runner, 1).startswith("agent: git clone: ")
    assert not ran.exists()  # git's ext:: transport never ran the program
    linked = agent(env, work, "plugin", "install", "linked@evil", "--yes")
    assert "tools/link is not a folder of" in one_line_error(linked, 2)
    _nothing_installed(env)
    assert not any(p.name == "secret.txt" for p in store_root(env).rglob("*"))
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["home", "market", "mono", "outside", "work"]


def test_a_manifest_name_that_is_a_path_is_not_where_the_copy_goes(tmp_path: Path):
    env = plugin_env(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    plugin = write_tree(
        tmp_path / "plug",
        {MANIFEST: {"name": "../../../../escaped"}, "commands/hi.md": "Say hi.\n"},
    )
    proc = agent(env, work, "plugin", "install", str(plugin), "--yes")
    assert proc.returncode == 0, proc.stderr
    (key,) = index(env)["installed"]
    assert key == "plug@local"  # the manifest's name was refused; the folder's is used
    assert "plugin.json: name" in proc.stderr
    assert not (tmp_path / "escaped").exists()
    assert not (store_root(env).parent.parent / "escaped").exists()
