"""The plugin loaders over every plugin folder and marketplace of ../shared/plugin-corpus (real
public files, never copied here, never executed): each loads, or warns, exactly as SHAPES.md
says it should. Skipped when ../shared is absent (a fresh clone of the project)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from agent_cli.ext.plugins.components import load_bundle
from agent_cli.ext.plugins.marketplace import Entry, RelativeSource, read_marketplace
from agent_cli.ext.plugins.runs import what_it_runs

REPO = Path(__file__).resolve().parents[2]
# ../shared beside the checkout (a worktree sits one folder deeper)
CANDIDATES = [
    REPO.parent / "shared" / "plugin-corpus",
    REPO.parent.parent / "shared" / "plugin-corpus",
]
CORPUS = next((c for c in CANDIDATES if (c / "MANIFEST.tsv").is_file()), None)
pytestmark = pytest.mark.skipif(CORPUS is None, reason="../shared/plugin-corpus is absent")

MS = "seconds looks like milliseconds"
GITHUB_STRING = "is not a valid source (write"
CC, WS, TP = (
    "anthropics__claude-code/plugins",
    "wshobson__agents/plugins",
    "technicalpickles__pickled-claude-plugins/plugins",
)
DG, LG = "Dev-GOM__claude-code-marketplace/plugins", "laurigates__claude-plugins"

# fmt: off
# local path -> (name, commands, agents, skills, hook events, MCP servers, language servers,
# what each warning says), loaded with its marketplace entry when a marketplace here lists it
PLUGINS: dict[str, tuple[str, int, int, int, str, str, str, list[str]]] = {
    f"{CC}/hookify": (
        "hookify", 4, 1, 1, "PostToolUse PreToolUse Stop UserPromptSubmit", "", "", []),
    f"{CC}/ralph-wiggum": ("ralph-wiggum", 3, 0, 0, "Stop", "", "", []),
    f"{CC}/commit-commands": ("commit-commands", 3, 0, 0, "", "", "", []),
    f"{CC}/explanatory-output-style": (
        "explanatory-output-style", 0, 0, 0, "SessionStart", "", "", []),
    # no manifest: the name is the entry's; 4 agents whose front matter PyYAML rejects are located
    f"{CC}/plugin-dev": ("plugin-dev", 1, 3, 7, "", "", "", []),
    f"{CC}/security-guidance": (
        "security-guidance", 0, 0, 0, "PostToolUse SessionStart Stop UserPromptSubmit", "", "",
        ["version: '2.0.0' but the marketplace entry says '1.0.0'"]),
    f"{WS}/avoid-ai-writing": (
        "avoid-ai-writing", 0, 0, 1, "", "", "", ["category: not a plugin.json field"]),
    f"{WS}/python-development": ("python-development", 1, 3, 16, "", "", "", []),
    "obra__superpowers": ("superpowers", 0, 0, 14, "SessionStart", "", "", []),
    "boostvolt__claude-code-lsps/gopls": ("gopls", 0, 0, 0, "SessionStart", "", "go", []),
    "boostvolt__claude-code-lsps/bash-language-server": (
        "bash-language-server", 0, 0, 0, "SessionStart", "", "bash", []),
    "JDScript__claude-gateway-plugin": (
        "claude-gateway", 0, 0, 0, "SessionEnd SessionStart", "", "", []),
    "J-Token__DM-plz": (
        "dm-plz", 0, 0, 0, "PermissionRequest PreToolUse Stop", "", "",
        ["version: '1.2.0' but the marketplace entry says '1.1.0'", MS, MS, MS]),
    # the entry appends ./commands/install.md (loaded once) and gives hooks as a path (refused)
    "fractary__claude-plugins/plugins/status": (
        "fractary-status", 2, 0, 2, "UserPromptSubmit", "", "",
        ["marketplace entry: hooks: a marketplace entry's hooks must be an inline object"]),
    f"{TP}/stay-on-target": ("stay-on-target", 2, 0, 0, "SessionStart", "", "", []),
    f"{TP}/sandbox-advisor": ("sandbox-advisor", 0, 0, 0, "PostToolUseFailure", "", "", []),
    # paths naming the defaults, `.mcp.json` among them: each loaded once
    "jeremylongshore__plugins-nixtla/005-plugins/nixtla-baseline-lab": (
        "nixtla-baseline-lab", 2, 1, 1, "", "nixtla-baseline-mcp", "", []),
    # its marketplace does not parse and it has no manifest: the folder names it
    "nikhilsitaram__claude-caliper": (
        "nikhilsitaram__claude-caliper", 0, 6, 12, "PermissionRequest PreToolUse", "", "", []),
    "02karthik__Hillnote-claude-plugins/session-capture": (
        "session-capture", 1, 0, 0, "", "notes", "", []),
    f"{DG}/hook-git-auto-backup": (
        "hook-git-auto-backup", 0, 0, 0, "SessionStart Stop", "", "",
        ["version: '1.1.1' but the marketplace entry says '1.0.0'", MS, MS]),
    f"{DG}/spec-kit": ("spec-kit", 10, 0, 0, "", "", "", []),  # commands as an object map
    "noahlz__claude-plugins/plugins/writing-tools": ("writing-tools", 0, 1, 2, "", "", "", []),
    # hooks in ./hooks.json at the root; a skill's reference file holds NUL bytes
    f"{LG}/terraform-plugin": ("terraform-plugin", 0, 1, 6, "PreToolUse", "", "", []),
    f"{LG}/session-plugin": ("session-plugin", 0, 0, 4, "SessionStart Stop", "", "", []),
    "JCodesMore__youtube-mcp": ("youtube", 0, 1, 2, "SessionStart", "youtube", "", []),
    "JBillson__claude-annotator": (
        "JBillson__claude-annotator", 0, 0, 0, "Stop UserPromptSubmit", "", "", []),
}
# marketplace root -> (name, entries, usable sources, what each warning says), or its problem
MARKETPLACES: dict[str, tuple[str, int, int, list[str]] | str] = {
    "anthropics__claude-code": ("claude-code-plugins", 13, 13, []),
    "wshobson__agents": ("claude-code-workflows", 92, 92, []),
    "obra__superpowers": ("superpowers-dev", 1, 1, []),
    "boostvolt__claude-code-lsps": ("claude-code-lsps", 22, 22, []),
    "J-Token__DM-plz": ("dm-plz-marketplace", 1, 1, []),
    "fractary__claude-plugins": ("fractary", 14, 14, []),
    # 2 git-subdir
    "technicalpickles__pickled-claude-plugins": ("pickled-claude-plugins", 18, 18, []),
    "jeremylongshore__plugins-nixtla": ("nixtla-plugins", 3, 0, [GITHUB_STRING] * 3),
    "nikhilsitaram__claude-caliper": "not valid JSON (line 69 column 7: Expecting ',' delimiter)",
    "02karthik__Hillnote-claude-plugins": ("hillnote-plugins", 3, 3, []),
    "Dev-GOM__claude-code-marketplace": ("dev-gom-plugins", 9, 9, []),
    "noahlz__claude-plugins": ("noahlz.github.io", 2, 2, []),
    "0k-software__0k-plugins": ("0k-plugins", 1, 1, []),  # a github source
    "obra__superpowers-marketplace": ("superpowers-marketplace", 10, 10, []),  # url sources
    "laurigates__claude-plugins": ("laurigates-claude-plugins", 44, 44, []),
}
# fmt: on


def rows(kind: str) -> list[dict[str, str]]:
    assert CORPUS is not None
    with (CORPUS / "MANIFEST.tsv").open(encoding="utf-8") as f:
        return [r for r in csv.DictReader(f, delimiter="\t") if r["kind"] == kind]


def marketplace_root(row: dict[str, str]) -> Path:
    assert CORPUS is not None
    return (CORPUS / row["local_path"]).parent.parent


def listed_entries() -> dict[Path, Entry]:
    """Each plugin folder a parsed marketplace here points at, with its entry."""
    found: dict[Path, Entry] = {}
    for row in rows("marketplace"):
        for entry in read_marketplace(marketplace_root(row), origin=row["repo"]).entries:
            if isinstance(entry.source, RelativeSource):
                found.setdefault(entry.source.path, entry)
    return found


def test_the_tables_cover_the_whole_corpus() -> None:
    assert sorted(r["local_path"] for r in rows("plugin")) == sorted(PLUGINS)
    assert sorted(marketplace_root(r).name for r in rows("marketplace")) == sorted(MARKETPLACES)


@pytest.mark.parametrize("local_path", sorted(PLUGINS))
def test_each_plugin_loads_or_warns_as_predicted(local_path: str, tmp_path: Path) -> None:
    assert CORPUS is not None
    root = (CORPUS / local_path).resolve()
    entry = listed_entries().get(root)
    bundle, warnings = load_bundle(
        root, entry=entry, source="corpus", scope="user", data=tmp_path / "data"
    )
    name, commands, agents, skills, events, mcp, lsp, said = PLUGINS[local_path]
    assert (bundle.name, len(bundle.commands), len(bundle.agents), len(bundle.skills)) == (
        name,
        commands,
        agents,
        skills,
    )
    assert " ".join(sorted(bundle.hooks)) == events
    assert (" ".join(bundle.mcp_servers), " ".join(bundle.lsp_servers)) == (mcp, lsp)
    assert len(warnings) == len(said), warnings
    for line, words in zip(warnings, said, strict=True):
        assert line.startswith(f"plugin {name}: "), line
        assert words in line, line
    located = [c.path for c in bundle.commands if c.path] + [*bundle.agents, *bundle.skills]
    assert all(p.is_relative_to(root) for p in located)
    assert all(line.strip() for line in what_it_runs(bundle))  # consent can list it


@pytest.mark.parametrize("row", rows("marketplace") if CORPUS else [], ids=lambda r: r["repo"])
def test_each_marketplace_lists_or_warns_as_predicted(row: dict[str, str]) -> None:
    root = marketplace_root(row)
    catalog = read_marketplace(root, origin=row["repo"])
    expected = MARKETPLACES[root.name]
    if isinstance(expected, str):
        assert catalog.problem is not None
        assert catalog.problem.endswith(f".claude-plugin/marketplace.json: {expected}")
        assert catalog.entries == ()
        return
    name, count, usable, said = expected
    assert (catalog.problem, catalog.name, len(catalog.entries)) == (None, name, count)
    assert len([e for e in catalog.entries if e.source is not None]) == usable
    assert len(catalog.warnings) == len(said), catalog.warnings
    assert all(words in line for line, words in zip(catalog.warnings, said, strict=True))


def test_the_reserved_name_loads_only_from_anthropics() -> None:
    assert CORPUS is not None
    root = CORPUS / "anthropics__claude-code"
    assert read_marketplace(root, origin="anthropics/claude-code").problem is None
    refused = read_marketplace(root, origin="someone-else/claude-code-plugins").problem
    assert refused is not None
    assert "'claude-code-plugins' is reserved" in refused


def test_relative_sources_that_were_copied_name_their_plugin_folder() -> None:
    """Every plugin folder taken from a repository whose marketplace parses is reached by one
    of its entries (the corpus keeps repository paths, so `./plugins/x` still resolves)."""
    reached = listed_entries()
    parsed = {
        r["repo"]
        for r in rows("marketplace")
        if not isinstance(MARKETPLACES[marketplace_root(r).name], str)
    }
    for row in rows("plugin"):
        if row["repo"] in parsed and row["repo"] != "jeremylongshore/plugins-nixtla":
            assert CORPUS is not None
            assert (CORPUS / row["local_path"]).resolve() in reached, row["local_path"]
