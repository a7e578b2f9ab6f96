"""What a plugin runs, as consent shows and fingerprints it: each hook command, server command
line and skill script, `${CLAUDE_PLUGIN_ROOT}` expanded, in an order that does not depend on
how the files happen to be written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_cli.ext.plugins.components import load_bundle
from agent_cli.ext.plugins.runs import skill_scripts, what_it_runs
from agent_cli.runtime.bundles import Bundle
from tests.plugin_fixtures import (
    MANIFEST,
    full_plugin,
    group,
    handler,
    hooks_file,
    manifest,
    skill_md,
    write_tree,
)


def load(root: Path, **kw: Any) -> Bundle:
    bundle, _ = load_bundle(root, source="t@local", scope="user", data=root.parent / "d", **kw)
    return bundle


def test_one_line_per_thing_it_runs_with_the_root_expanded(tmp_path: Path) -> None:
    root = full_plugin(tmp_path / "kit").resolve()
    assert what_it_runs(load(root)) == [
        f'hook PreToolUse [Bash]: sh "{root}/hooks/guard.sh"',
        f"mcp server notes: python3 {root}/servers/notes.py",
        "language server fixture: fixture-ls --stdio",
        f"skill script: {root}/skills/lint/scripts/check.sh",
    ]
    assert what_it_runs(load(root), expand=False)[0] == (
        'hook PreToolUse [Bash]: sh "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh"'
    )


def test_scripts_by_suffix_or_executable_bit_and_never_through_a_link_out(tmp_path: Path) -> None:
    files = {f"skills/s/{name}": "x\n" for name in ("a.py", "b.SH", "c.js", "d.ts", "e.mjs")}
    files |= {"skills/s/f.rb": "x", "skills/s/bin/tool": "x", "skills/s/notes.md": "x"}
    files |= {"skills/s/SKILL.md": skill_md("s", "S"), "outside.sh": "x"}
    root = write_tree(tmp_path / "p", files, executable=["skills/s/bin/tool"])
    (root / "skills/s/link.sh").symlink_to(tmp_path / "nowhere.sh")
    (root / "skills/s/up").symlink_to(tmp_path)
    scripts = skill_scripts(load(root))
    names = [p.relative_to(root.resolve()).as_posix() for p in scripts]
    assert names == [
        "skills/s/a.py",
        "skills/s/b.SH",
        "skills/s/bin/tool",
        "skills/s/c.js",
        "skills/s/d.ts",
        "skills/s/e.mjs",
        "skills/s/f.rb",
    ]


def test_exec_form_http_and_prompt_handlers_and_remote_servers(tmp_path: Path) -> None:
    handlers = [
        handler("${CLAUDE_PLUGIN_ROOT}/bin/run", args=["a b", "${CLAUDE_PLUGIN_DATA}/x"]),
        {"type": "http", "url": "https://hooks.example/h"},
        {"type": "prompt", "prompt": "Is this safe?"},
    ]
    root = write_tree(
        tmp_path / "p",
        {
            "hooks/hooks.json": hooks_file({"Stop": [group(*handlers)]}),
            ".mcp.json": {"mcpServers": {"web": {"type": "http", "url": "https://x/mcp"}}},
        },
    ).resolve()
    data = root.parent / "d"
    assert what_it_runs(load(root)) == [
        f"hook Stop: {root}/bin/run 'a b' {data}/x",
        "hook Stop: http https://hooks.example/h",
        "mcp server web: http https://x/mcp",
    ]


def test_the_order_does_not_depend_on_how_the_files_are_written(tmp_path: Path) -> None:
    one = {"Stop": [group(handler("s"))], "PreToolUse": [group(handler("p"), matcher="Bash")]}
    two = {"PreToolUse": [group(handler("p"), matcher="Bash")], "Stop": [group(handler("s"))]}
    servers = {"b": {"command": "b"}, "a": {"command": "a"}}
    first = write_tree(
        tmp_path / "one" / "p", {"hooks/hooks.json": hooks_file(one), ".mcp.json": servers}
    )
    second = write_tree(
        tmp_path / "two" / "p",
        {"hooks/hooks.json": hooks_file(two), ".mcp.json": dict(reversed(servers.items()))},
    )
    assert what_it_runs(load(first)) == what_it_runs(load(second))
    assert what_it_runs(load(first)) == [
        "hook PreToolUse [Bash]: p",
        "hook Stop: s",
        "mcp server a: a",
        "mcp server b: b",
    ]


def test_a_changed_hook_changes_what_it_runs(tmp_path: Path) -> None:
    root = full_plugin(tmp_path / "kit")
    before = what_it_runs(load(root))
    write_tree(root, {MANIFEST: manifest("kit", hooks={"Stop": [group(handler("curl evil"))]})})
    after = what_it_runs(load(root))
    assert sorted(set(after) - set(before)) == ["hook Stop: curl evil"]
