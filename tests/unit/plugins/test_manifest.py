"""A plugin folder resolved into a Bundle, in every shape SHAPES.md §1-§2 counts: with or
without plugin.json, component paths written every way real plugins write them, and each
oddity a warning naming file and key while the rest of the plugin loads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_cli.ext.plugins.components import load_bundle
from agent_cli.ext.plugins.manifest import name_problem, read_json
from agent_cli.ext.plugins.marketplace import Entry, RelativeSource
from agent_cli.runtime.bundles import Bundle
from tests.plugin_fixtures import (
    MANIFEST,
    agent_md,
    command_md,
    full_plugin,
    hooks_only_plugin,
    manifest,
    skill_md,
    skills_only_plugin,
    write_tree,
)


def load(root: Path, **kw: Any) -> tuple[Bundle, list[str]]:
    return load_bundle(root, source="test@local", scope="user", data=root.parent / "data", **kw)


def entry(name: str, root: Path, **kw: Any) -> Entry:
    return Entry(name=name, source=RelativeSource(root, "./x"), **kw)


def test_full_plugin_loads_every_component_at_its_default_place(tmp_path: Path) -> None:
    root = full_plugin(tmp_path / "kit")
    bundle, warnings = load(root)
    assert warnings == []
    assert (bundle.name, bundle.version, bundle.root) == ("kit", "1.0.0", root.resolve())
    assert [(c.name, c.path) for c in bundle.commands] == [
        ("hello", root.resolve() / "commands/hello.md")
    ]
    assert bundle.agents == (root.resolve() / "agents/reviewer.md",)
    assert bundle.skills == (root.resolve() / "skills/lint",)
    assert list(bundle.hooks) == ["PreToolUse"]
    assert bundle.hooks["PreToolUse"][0]["matcher"] == "Bash"
    assert list(bundle.mcp_servers) == ["notes"]
    assert bundle.lsp_servers["fixture"]["extensionToLanguage"] == {".fx": "fixture"}


def test_no_manifest_takes_the_name_from_the_entry_else_the_folder(tmp_path: Path) -> None:
    root = hooks_only_plugin(tmp_path / "claude-annotator")
    bundle, warnings = load(root)
    assert (bundle.name, list(bundle.hooks), warnings) == ("claude-annotator", ["Stop"], [])
    named, _ = load(root, entry=entry("annotator", root, version="0.2", description="Notes"))
    assert (named.name, named.version, named.description) == ("annotator", "0.2", "Notes")
    assert load(root, name="given")[0].name == "given"  # the caller's name wins


def test_skills_only_plugin_without_manifest(tmp_path: Path) -> None:
    root = skills_only_plugin(tmp_path / "writing-tools")
    bundle, warnings = load(root)
    assert [p.name for p in bundle.skills] == ["draft", "edit"]
    assert (bundle.commands, bundle.agents, dict(bundle.hooks), warnings) == ((), (), {}, [])


def test_manifest_name_differs_from_the_folder(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "status", {MANIFEST: manifest("fractary-status")})
    assert load(root)[0].name == "fractary-status"


def test_commands_as_string_array_and_object_map(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            "commands/a.md": command_md("A"),
            "commands/sub/b.md": command_md("B"),
            "extra/c.md": command_md("C"),
            "other/d.md": command_md("D"),
        },
    )
    (root / MANIFEST).parent.mkdir()
    forms: dict[str, Any] = {
        "./commands/": ["a", "sub:b"],
        "commands": ["a", "sub:b"],  # no ./
        "./extra/c.md": ["c"],
    }
    for value, names in forms.items():
        write_tree(root, {MANIFEST: manifest("p", commands=value)})
        assert [c.name for c in load(root)[0].commands] == names, value
    write_tree(root, {MANIFEST: manifest("p", commands=["./commands/a.md", "other/"])})
    bundle, warnings = load(root)
    assert [c.name for c in bundle.commands] == ["a", "d"]
    assert warnings == []  # a path into commands/: the folder is not said to be replaced
    mapped = {
        "init": {"description": "Start", "source": "./commands/a.md"},
        "inline": {"content": "Do the thing.", "description": "Inline"},
        "both": {"source": "./commands/a.md", "content": "x"},
    }
    write_tree(root, {MANIFEST: manifest("p", commands=mapped)})
    bundle, warnings = load(root)
    assert [(c.name, c.description, c.content) for c in bundle.commands] == [
        ("init", "Start", None),
        ("inline", "Inline", "Do the thing."),
    ]
    assert warnings == [
        f"plugin p: {MANIFEST}: commands.both: needs exactly one of `source` or `content`; ignored"
    ]


def test_a_declared_path_elsewhere_replaces_the_default_folder_and_says_so(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            MANIFEST: manifest("p", commands="./extra/", agents=["./team/x.md"]),
            "commands/old.md": command_md("Old"),
            "extra/new.md": command_md("New"),
            "agents/a.md": agent_md("a", "A"),
            "team/x.md": agent_md("x", "X"),
        },
    )
    bundle, warnings = load(root)
    assert [c.name for c in bundle.commands] == ["new"]
    assert [p.name for p in bundle.agents] == ["x.md"]
    assert warnings == [
        f"plugin p: {MANIFEST}: commands: replaces the default commands/ folder, whose files "
        "are not loaded",
        f"plugin p: {MANIFEST}: agents: replaces the default agents/ folder, whose files are "
        "not loaded",
    ]


def test_two_commands_of_one_name_keep_the_first(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            MANIFEST: manifest("p", commands=["./commands/", "./more/"]),
            "commands/go.md": command_md("Go"),
            "more/go.md": command_md("Go again"),
        },
    )
    bundle, warnings = load(root)
    assert [c.path for c in bundle.commands] == [root.resolve() / "commands/go.md"]
    assert warnings == ["plugin p: more/go.md: commands: /go is defined twice; the first is kept"]


def test_a_strict_entry_adds_to_the_default_folder_when_plugin_json_sets_none(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path / "repo",
        {
            MANIFEST: manifest("repo"),
            "agents/a.md": agent_md("a", "A"),
            "agents/b.md": agent_md("b", "B"),
            "extra/c.md": agent_md("c", "C"),
        },
    )
    listed = entry("repo", root, components={"agents": ["./agents/a.md", "./extra/c.md"]})
    bundle, warnings = load(root, entry=listed)
    assert [p.name for p in bundle.agents] == ["a.md", "b.md", "c.md"]
    assert warnings == []


def test_paths_naming_the_defaults_load_each_file_once(tmp_path: Path) -> None:
    root = full_plugin(tmp_path / "kit")
    fields = {
        "commands": "./commands",
        "agents": "./agents",
        "skills": "./skills",
        "hooks": "./hooks/hooks.json",
        "mcpServers": "./.mcp.json",
    }
    write_tree(root, {MANIFEST: manifest("kit", **fields)})
    bundle, warnings = load(root)
    assert warnings == []
    assert (len(bundle.commands), len(bundle.agents), len(bundle.skills)) == (1, 1, 1)
    assert len(bundle.hooks["PreToolUse"]) == 1  # not twice
    assert list(bundle.mcp_servers) == ["notes"]


def test_skills_add_to_the_default_folder_in_every_form(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            "skills/one/SKILL.md": skill_md("one", "One"),
            "more/two/SKILL.md": skill_md("two", "Two"),
            "single/SKILL.md": skill_md("single", "Single"),
            "empty/README.md": "nothing here",
        },
    )
    write_tree(root, {MANIFEST: manifest("p", skills=["more/", "./single/SKILL.md", "./empty"])})
    bundle, warnings = load(root)
    assert [p.name for p in bundle.skills] == ["one", "two", "single"]
    assert warnings == [f"plugin p: {MANIFEST}: skills: './empty' holds no SKILL.md; ignored"]


def test_missing_paths_wrong_types_and_unknown_keys_are_one_line_each(tmp_path: Path) -> None:
    root = full_plugin(tmp_path / "kit")
    fields = {"agents": ["./nope.md", 7], "category": "x", "skills": {"a": 1}}
    write_tree(root, {MANIFEST: manifest("kit", **fields)})
    bundle, warnings = load(root)
    assert warnings == [
        f"plugin kit: {MANIFEST}: category: not a plugin.json field; ignored",
        f"plugin kit: {MANIFEST}: agents: './nope.md' does not exist; ignored",
        f"plugin kit: {MANIFEST}: agents: 7 is not a path; ignored",
        f"plugin kit: {MANIFEST}: agents: replaces the default agents/ folder, whose files are "
        "not loaded",
        f"plugin kit: {MANIFEST}: skills: a dict, not a path or a list of paths; ignored",
    ]
    assert bundle.skills
    assert bundle.commands
    assert bundle.hooks


def test_invalid_plugin_json_loads_the_defaults_with_one_warning(tmp_path: Path) -> None:
    root = full_plugin(tmp_path / "kit")
    write_tree(root, {MANIFEST: '{"name": "kit",\n "version": "1"\n "x": 1}'})
    bundle, warnings = load(root)
    assert warnings == [
        f"plugin kit: {MANIFEST}: not valid JSON (line 3 column 2: Expecting ',' delimiter); "
        "its defaults are loaded"
    ]
    assert bundle.name == "kit"
    assert bundle.commands
    assert bundle.mcp_servers


def test_bad_names_are_refused_and_the_folder_name_is_used(tmp_path: Path) -> None:
    assert name_problem("a b")
    assert name_problem("x:y")
    assert name_problem("o/n")
    assert name_problem("")
    assert name_problem("kebab-name.v2") is None
    root = write_tree(tmp_path / "good", {MANIFEST: manifest("bad name")})
    bundle, warnings = load(root)
    assert bundle.name == "good"
    assert warnings == [
        f"plugin good: {MANIFEST}: name: 'bad name' holds a space, '@', ':', a path separator "
        "or a control character; not used"
    ]


def test_paths_and_symlinks_leaving_the_plugin_are_never_followed(tmp_path: Path) -> None:
    outside = write_tree(
        tmp_path / "outside",
        {"secret.md": command_md("Secret"), "skill/SKILL.md": skill_md("s", "S")},
    )
    root = write_tree(tmp_path / "p", {"commands/ok.md": command_md("Ok")})
    (root / "commands/leak.md").symlink_to(outside / "secret.md")
    (root / "skills").mkdir()
    (root / "skills/stolen").symlink_to(outside / "skill")
    (root / "agents").symlink_to(outside)
    fields = {"skills": ["../outside/skill", "/etc"], "hooks": "./hooks/../../outside/h.json"}
    write_tree(root, {MANIFEST: manifest("p", **fields)})
    bundle, warnings = load(root)
    assert [c.name for c in bundle.commands] == ["ok"]
    assert (bundle.skills, bundle.agents, dict(bundle.hooks)) == ((), (), {})
    assert all(str(outside) not in str(p) for p in [*bundle.skills, *bundle.agents])
    text = "\n".join(warnings)
    for needle in ("commands/leak.md leads out", "skills/stolen leads out", "agents leads out"):
        assert needle in text, needle
    assert "'../outside/skill' is outside the plugin folder; not followed" in text
    assert "'/etc' is outside the plugin folder; not followed" in text


def test_markdown_with_nul_bytes_or_front_matter_yaml_rejects_is_still_located(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            "agents/odd.md": "---\nname: odd\ndescription: Use when: x <example>a: b</example>\n"
            "---\nBody\n",
            "skills/tf/SKILL.md": skill_md("tf", "Terraform"),
            "skills/tf/REFERENCE.md": b"box \x00\x00 drawing\n",
        },
    )
    bundle, warnings = load(root)
    assert (len(bundle.agents), len(bundle.skills), warnings) == (1, 1, [])


def test_read_json_says_what_is_wrong_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("../other/marketplace.json")
    assert read_json(path)[1] == (
        "holds one line of text, not JSON ('../other/marketplace.json': a symlink committed "
        "as a file?)"
    )
    path.write_text('{"plugins": [1, 2,]}')
    assert read_json(path)[1] == "not valid JSON (line 1 column 19: Expecting value)"
    assert str(read_json(tmp_path / "none.json")[1]).startswith("cannot be read")
