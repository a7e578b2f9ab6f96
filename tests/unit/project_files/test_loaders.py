"""The project-file loaders over the suite's own fixtures (at least 25 per kind, in the shapes
real repositories use): every file loads, with the right name, tools, patterns and model; a
broken file is one warning and the others load; the nearest definition wins and shows what it
shadows; hostile trees (symlinks out, binaries, huge files) are refused, never followed."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from agent_cli.core.settings.models import aliases
from agent_cli.core.settings.schema import Settings
from agent_cli.ext.project_files import vocabulary as vocab
from agent_cli.ext.project_files.catalog import load_project_files
from agent_cli.ext.project_files.claude.settings import ClaudeSettings, read_settings_file
from agent_cli.ext.project_files.definitions import load_kind
from agent_cli.ext.project_files.frontmatter import parse
from agent_cli.ext.project_files.kinds import AGENTS, COMMANDS, SKILLS
from agent_cli.ext.project_files.sources import Root, workspace_roots
from agent_cli.policy.trust import TrustStore
from tests.unit.project_files.fixtures.agents import AGENTS as AGENT_FILES
from tests.unit.project_files.fixtures.commands import COMMANDS as COMMAND_FILES
from tests.unit.project_files.fixtures.settings import SETTINGS
from tests.unit.project_files.fixtures.skills import SKILLS as SKILL_FILES

ALIASES = aliases(Settings())  # the top-level ones: project files add none by default


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def root_with(tmp_path: Path, files: dict[str, str]) -> Root:
    root = tmp_path / ".claude"
    for rel, text in files.items():
        write(root / rel, text)
    return Root(root, "workspace")


def test_fixture_counts_hold_the_floor():
    assert min(len(AGENT_FILES), len(COMMAND_FILES), len(SKILL_FILES), len(SETTINGS)) >= 25


def test_every_agent_fixture_loads_with_its_name_tools_and_model(tmp_path: Path):
    root = root_with(tmp_path, {f"agents/{p}": text for p, text, *_ in AGENT_FILES})
    loaded = load_kind(AGENTS, [root])
    assert loaded.warnings == []
    got = {
        name: (item.tools, vocab.resolve_model(item.model, ALIASES, "parent")[0])
        for name, item in loaded.items.items()
    }
    expected = {name: (tools, model or "parent") for _, _, name, tools, model in AGENT_FILES}
    assert got == expected


def test_every_command_fixture_loads_with_its_tools_patterns_and_hint(tmp_path: Path):
    root = root_with(tmp_path, {f"commands/{p}": text for p, text, *_ in COMMAND_FILES})
    loaded = load_kind(COMMANDS, [root])
    assert loaded.warnings == []
    got = {
        name: (item.tools, item.patterns, item.meta["argument_hint"])
        for name, item in loaded.items.items()
    }
    expected = {name: (tools, pats, hint) for _, _, name, tools, pats, hint in COMMAND_FILES}
    assert got == expected


def test_every_skill_fixture_loads_with_its_name_tools_and_invocation(tmp_path: Path):
    files = {}
    for folder, text, _, _, _, siblings in SKILL_FILES:
        files[f"skills/{folder}/SKILL.md"] = text
        files.update({f"skills/{folder}/{rel}": body for rel, body in siblings.items()})
    loaded = load_kind(SKILLS, [root_with(tmp_path, files)])
    assert loaded.warnings == []
    got = {n: (i.tools, i.meta["model_invocable"]) for n, i in loaded.items.items()}
    assert got == {name: (tools, invocable) for _, _, name, tools, invocable, _ in SKILL_FILES}


@pytest.mark.parametrize(("text", "hooks", "first", "rules", "warned"), SETTINGS)
def test_settings_fixture(
    tmp_path: Path,
    text: str,
    hooks: int,
    first: tuple[str, str] | None,
    rules: dict[str, list[str]],
    warned: bool,
):
    found = ClaudeSettings()
    read_settings_file(write(tmp_path / "settings.json", text), "workspace", found)
    assert len(found.hooks) == hooks
    if first is not None:
        hook = found.hooks[0][0]
        assert (hook.event, hook.matcher) == first
    for kind, patterns in rules.items():
        assert [p for r in found.rules if r.kind == kind for p in r.patterns] == patterns
    assert bool(found.warnings) is warned


def test_descriptions_come_from_blocks_the_body_or_wizard_escapes(tmp_path: Path):
    root = root_with(tmp_path, {f"agents/{p}": text for p, text, *_ in AGENT_FILES})
    items = load_kind(AGENTS, [root]).items
    assert items["planner"].description == "Plans large refactors. Writes no code."
    assert items["folded"].description == "Folded description over two lines."
    assert items["no-front-matter"].description == "Fixes failing tests one at a time."
    assert items["billing-checker"].description.startswith("Use this agent after a change")
    assert "\\n" not in items["billing-checker"].description
    assert "not strict YAML" in items["wizard-fail"].notes[0]
    assert items["with-web"].unavailable == ["WebFetch", "WebSearch"]
    assert items["extra-keys"].ignored == ["category", "effort", "memory", "related", "skills"]
    assert items["modes"].meta["permission_mode"] == "acceptEdits"
    assert items["modes"].meta["max_turns"] == 12
    assert items["disallowed"].meta["disallowed"] == ["bash", "write_file"]


def test_a_broken_file_is_one_warning_and_the_others_load(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    root = root_with(tmp_path, {"agents/good.md": "---\nname: good\n---\nBody.\n"})
    write(root.path / "agents/binary.md", "\0\0\0binary")
    write(root.path / "agents/bad name.md", "---\nname: '!!!'\n---\n")
    with caplog.at_level(logging.WARNING):
        loaded = load_kind(AGENTS, [root])
    assert list(loaded.items) == ["good"]
    assert len(loaded.warnings) == 2
    assert all(w.startswith(str(root.path)) for w in loaded.warnings)
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 2


def test_a_symlink_out_of_the_project_is_not_read(tmp_path: Path):
    secret = write(tmp_path / "outside" / "id_rsa", "PRIVATE KEY")
    workspace = tmp_path / "ws"
    link = workspace / ".claude" / "skills" / "leak" / "SKILL.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(secret)
    loaded = load_kind(SKILLS, [Root(workspace / ".claude", "workspace")])
    assert loaded.items == {}
    assert "symlink out of the project" in loaded.warnings[0]


def test_the_nearest_definition_wins_and_lists_what_it_shadows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    workspace = repo / "pkg"
    near = write(workspace / ".agent/commands/deploy.md", "---\ndescription: near\n---\nA\n")
    mid = write(repo / ".claude/commands/deploy.md", "---\ndescription: repo\n---\nB\n")
    far = write(home / ".claude/commands/deploy.md", "---\ndescription: user\n---\nC\n")
    write(home / ".agents/commands/only-user.md", "Only in the user's folder.\n")
    files = load_project_files(workspace, TrustStore(tmp_path / "trust.json"))
    deploy = files.commands.items["deploy"]
    assert (deploy.description, deploy.path) == ("near", str(near))
    assert deploy.shadows == [str(mid), str(far)]
    assert files.commands.items["only-user"].scope == "user"
    assert [r.path for r in workspace_roots(workspace)][-1] == repo / ".claude"


def test_frontmatter_fallback_reads_lines_lists_and_blocks():
    fm = parse(
        "---\nname: x\ndescription: a: b: c\ntools:\n  - Read\n  - Grep\n"
        "hint: [a] [b]\nlong: first\n  second\n---\nbody"
    )
    assert fm.yaml_error is not None
    assert fm.data == {
        "name": "x",
        "description": "a: b: c",
        "tools": ["Read", "Grep"],
        "hint": "[a] [b]",
        "long": "first second",
    }
    assert fm.body == "body"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Read, Grep, Glob, Bash", ["Read", "Grep", "Glob", "Bash"]),
        ("Bash(git add:*), Bash(gh pr view:*)", ["Bash(git add:*)", "Bash(gh pr view:*)"]),
        ("Bash(git:*) Bash(npx:*)", ["Bash(git:*)", "Bash(npx:*)"]),
        (["Read", "Bash(a, b)"], ["Read", "Bash(a, b)"]),
        ('["Read", "Glob"]', ["Read", "Glob"]),
        (None, []),
    ],
)
def test_tool_lists_in_every_encoding(value: object, expected: list[str]):
    assert vocab.split_entries(value) == expected


def test_modes_map_and_never_widen_the_session():
    assert vocab.resolve_mode("acceptEdits", "bypass") == ("accept-edits", True, None)
    mode, _, note = vocab.resolve_mode("bypassPermissions", "default")
    assert (mode, note is not None) == ("default", True)
    assert vocab.resolve_mode("dontAsk", "default")[:2] == ("default", False)
    assert vocab.resolve_mode("plan", "default")[0] == "plan"


def test_a_wide_permission_mode_needs_trust_and_never_widens_the_session(tmp_path: Path):
    from agent_cli.core.settings.schema import HooksSettings, PermissionSettings, Settings
    from agent_cli.ext.project_files.agent_types import AgentTypes
    from agent_cli.policy.gate import PolicyGate
    from agent_cli.policy.hooks import Hooks
    from agent_cli.policy.permissions import Permissions

    write(
        tmp_path / ".claude/agents/wide.md",
        "---\nname: wide\npermissionMode: bypassPermissions\n---\nBody.\n",
    )
    write(
        tmp_path / ".claude/agents/narrow.md",
        "---\nname: narrow\npermissionMode: plan\n---\nBody.\n",
    )
    store = TrustStore(tmp_path / "trust.json")

    def gate_mode(name: str, session_mode: str) -> str:
        files = load_project_files(tmp_path, store)
        permissions = Permissions(PermissionSettings(mode=session_mode))
        types = AgentTypes(
            files, Settings(), lambda: "m", permissions, Hooks(HooksSettings(), "s", tmp_path), []
        )
        profile = types.profile(name)
        assert profile is not None
        if profile.gate is None:  # the parent's gate
            return session_mode
        assert isinstance(profile.gate, PolicyGate)
        return profile.gate.permissions.mode

    assert gate_mode("wide", "bypass") == "default"  # untrusted: not wider than default
    assert gate_mode("wide", "accept-edits") == "default"
    assert gate_mode("narrow", "bypass") == "plan"  # narrowing always applies
    from agent_cli.ext.project_files.catalog import trust_items
    from agent_cli.policy.trust import grant_items

    store.trust(tmp_path, grant_items(trust_items(load_project_files(tmp_path, store))))
    assert gate_mode("wide", "bypass") == "bypass"
    assert gate_mode("wide", "accept-edits") == "accept-edits"  # capped by the session's
