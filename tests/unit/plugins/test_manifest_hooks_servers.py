"""Hooks, MCP and language servers of a plugin (SHAPES.md §3-§4): every file and form merged,
unknown keys kept, invented events and loose handlers left out with a warning, timeouts in
milliseconds read as seconds, `.mcp.json` with or without its wrapper, a marketplace entry
appending to plugin.json or standing for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_cli.ext.plugins.components import ENTRY, load_bundle
from agent_cli.ext.plugins.marketplace import Entry, RelativeSource
from agent_cli.runtime.bundles import Bundle
from tests.plugin_fixtures import (
    MANIFEST,
    command_md,
    group,
    handler,
    hooks_file,
    manifest,
    write_tree,
)


def load(root: Path, **kw: Any) -> tuple[Bundle, list[str]]:
    return load_bundle(root, source="test@local", scope="user", data=root.parent / "data", **kw)


def commands_of(bundle: Bundle, event: str) -> list[str]:
    return [h["command"] for g in bundle.hooks.get(event, []) for h in g["hooks"]]


def test_hooks_file_inline_path_and_array_all_merge(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            "hooks/hooks.json": hooks_file({"Stop": [group(handler("default"))]}),
            "hooks.json": hooks_file({"Stop": [group(handler("root-file"))]}),
            "hooks/extra.json": {"hooks": {"SessionStart": [group(handler("extra"))]}},
        },
    )
    inline = {"Stop": [group(handler("inline"))]}
    write_tree(root, {MANIFEST: manifest("p", hooks=["./hooks.json", "hooks/extra.json", inline])})
    bundle, warnings = load(root)
    assert warnings == []
    assert commands_of(bundle, "Stop") == ["default", "root-file", "inline"]
    assert commands_of(bundle, "SessionStart") == ["extra"]
    write_tree(root, {MANIFEST: manifest("p", hooks=inline)})
    assert commands_of(load(root)[0], "Stop") == ["default", "inline"]


def test_unknown_keys_everywhere_are_kept_and_ignored(tmp_path: Path) -> None:
    handlers = handler("node x.js", continueOnError=True, suppressOutput=True, env={"A": "1"})
    data = hooks_file(
        {"SessionStart": [group(handlers, description="d", priority=100, enabled=True)]},
        author="me",
        lastUpdated="2025-10-20",
        version="1.1.1",
    )
    root = write_tree(tmp_path / "p", {"hooks/hooks.json": data})
    bundle, warnings = load(root)
    assert warnings == []
    (kept,) = bundle.hooks["SessionStart"]
    assert kept["priority"] == 100
    assert kept["hooks"][0]["env"] == {"A": "1"}


def test_invented_events_and_loose_handlers_are_left_out_with_a_warning(tmp_path: Path) -> None:
    data = {
        "name": "deploy-hooks",
        "usage": "...",
        "hooks": {
            "PreDeploy": [group(handler("deploy.sh"))],
            "OnError": [handler("notify.sh")],
            "Stop": [handler("loose.sh"), group(handler("ok.sh")), group({"type": "command"})],
        },
    }
    root = write_tree(tmp_path / "p", {"hooks/hooks.json": data})
    bundle, warnings = load(root)
    assert list(bundle.hooks) == ["Stop"]
    assert commands_of(bundle, "Stop") == ["ok.sh"]
    assert warnings == [
        "plugin p: hooks/hooks.json: hooks.PreDeploy: not a hook event; ignored",
        "plugin p: hooks/hooks.json: hooks.OnError: not a hook event; ignored",
        "plugin p: hooks/hooks.json: hooks.Stop[0]: a handler directly in the event's list, "
        "with no matcher group around it; ignored",
        "plugin p: hooks/hooks.json: hooks.Stop[2].hooks[0]: a command handler without a "
        "command; ignored",
    ]


def test_a_folder_given_as_a_hooks_file_and_a_broken_hooks_file(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            MANIFEST: manifest("p", hooks=["hooks/", "./broken.json"]),
            "hooks/hooks.json": hooks_file({"Stop": [group(handler("ok"))]}),
            "broken.json": '{"hooks": {,}}',
        },
    )
    bundle, warnings = load(root)
    assert commands_of(bundle, "Stop") == ["ok"]
    assert warnings == [
        f"plugin p: {MANIFEST}: hooks: 'hooks/' is a folder where a hooks .json file is "
        "expected; ignored",
        "plugin p: broken.json: hooks: not valid JSON (line 1 column 12: Expecting property "
        "name enclosed in double quotes); its hooks are not loaded",
    ]


def test_timeouts_that_look_like_milliseconds_are_read_as_seconds(tmp_path: Path) -> None:
    handlers = [handler("a", timeout=300000), handler("b", timeout=5000), handler("c", timeout=30)]
    root = write_tree(
        tmp_path / "p", {"hooks/hooks.json": hooks_file({"Stop": [group(*handlers)]})}
    )
    bundle, warnings = load(root)
    assert [h["timeout"] for h in bundle.hooks["Stop"][0]["hooks"]] == [300, 5, 30]
    assert warnings == [
        "plugin p: hooks/hooks.json: hooks.Stop[0].hooks[0].timeout: 300000 seconds looks like "
        "milliseconds; read as 300 s",
        "plugin p: hooks/hooks.json: hooks.Stop[0].hooks[1].timeout: 5000 seconds looks like "
        "milliseconds; read as 5 s",
    ]


def test_mcp_json_with_or_without_the_wrapper_and_inline_later_wins(tmp_path: Path) -> None:
    server = {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/s.mjs"], "type": "stdio"}
    wrapped = write_tree(tmp_path / "a", {".mcp.json": {"mcpServers": {"s": server}}})
    bare = write_tree(tmp_path / "b", {".mcp.json": {"s": server, "web": {"type": "http"}}})
    assert load(wrapped)[0].mcp_servers == {"s": server}
    bundle, warnings = load(bare)
    assert bundle.mcp_servers == {"s": server}
    assert warnings == [
        "plugin b: .mcp.json: mcpServers.web: a server needs a `command` (stdio) or a `url` "
        "(http, sse, ws); ignored"
    ]
    write_tree(bare, {MANIFEST: manifest("b", mcpServers={"s": {"url": "https://x/mcp"}})})
    assert load(bare)[0].mcp_servers == {"s": {"url": "https://x/mcp"}}


def test_lsp_json_bare_map_and_a_server_without_what_it_needs(tmp_path: Path) -> None:
    gopls = {"command": "gopls", "extensionToLanguage": {".go": "go"}}
    root = write_tree(tmp_path / "p", {".lsp.json": {"go": gopls, "half": {"command": "x"}}})
    bundle, warnings = load(root)
    assert bundle.lsp_servers == {"go": gopls}
    assert warnings == [
        "plugin p: .lsp.json: lspServers.half: a language server needs `extensionToLanguage` "
        '(`{".go": "go"}`); ignored'
    ]


def test_a_strict_entry_appends_and_its_path_hooks_are_refused(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "status",
        {
            MANIFEST: manifest("fractary-status", commands="./commands/", version="1.0.1"),
            "commands/install.md": command_md("Install"),
            "commands/sync.md": command_md("Sync"),
            "hooks/hooks.json": hooks_file({"UserPromptSubmit": [group(handler("capture"))]}),
        },
    )
    components = {"commands": ["./commands/install.md"], "hooks": "./hooks/hooks.json"}
    listed = Entry(
        "fractary-status", RelativeSource(root, "./status"), "1.0.0", components=components
    )
    bundle, warnings = load(root, entry=listed)
    assert [c.name for c in bundle.commands] == ["install", "sync"]  # install.md once
    assert commands_of(bundle, "UserPromptSubmit") == ["capture"]
    assert bundle.version == "1.0.1"
    assert warnings == [
        f"plugin fractary-status: {MANIFEST}: version: '1.0.1' but the marketplace entry says "
        "'1.0.0'; plugin.json's is used",
        f"plugin fractary-status: {ENTRY}: hooks: a marketplace entry's hooks must be an inline "
        "object, not a str; ignored",
    ]


def test_an_entry_stands_for_a_missing_manifest_and_inline_hooks_replace(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "repo",
        {
            "skills/a/SKILL.md": "---\nname: a\n---\n",
            "skills/b/SKILL.md": "---\nname: b\n---\n",
            "tools/c/SKILL.md": "---\nname: c\n---\n",
            "hooks/hooks.json": hooks_file({"Stop": [group(handler("old"))]}),
        },
    )
    lsp = {"ts": {"command": "vtsls", "args": ["--stdio"], "extensionToLanguage": {".ts": "ts"}}}
    components = {"skills": ["./tools/c"], "lspServers": lsp}
    listed = Entry("caliper", RelativeSource(root, "./"), strict=False, components=components)
    bundle, warnings = load(root, entry=listed)
    assert (bundle.name, [p.name for p in bundle.skills], warnings) == (
        "caliper",
        ["a", "b", "c"],
        [],
    )
    assert bundle.lsp_servers == lsp
    write_tree(root, {MANIFEST: manifest("caliper")})
    strict = Entry(
        "caliper",
        RelativeSource(root, "./"),
        components={"hooks": {"Stop": [group(handler("new"))]}},
    )
    assert commands_of(load(root, entry=strict)[0], "Stop") == ["new"]
    loose = Entry("caliper", RelativeSource(root, "./"), strict=False, components=components)
    bundle, warnings = load(root, entry=loose)
    assert [p.name for p in bundle.skills] == ["a", "b"]
    assert not bundle.lsp_servers
    assert warnings == [
        f"plugin caliper: {ENTRY}: lspServers, skills: strict: false, yet the plugin has its own "
        "plugin.json; the entry's components are ignored"
    ]
