"""Marketplace catalogs (SHAPES.md §5): every source kind real marketplaces use, typed; the
`github:` string form and other bad sources warned per entry while the others load; a file
that is not JSON one problem naming it; names reserved for Anthropic refused elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_cli.ext.plugins.marketplace import (
    MARKETPLACE,
    GitHubSource,
    GitSubdirSource,
    RelativeSource,
    UrlSource,
    is_anthropic,
    read_marketplace,
)
from tests.plugin_fixtures import entry, marketplace, raw_marketplace, write_tree

SHA = "0123456789abcdef0123456789abcdef01234567"


def test_every_source_kind_is_typed(tmp_path: Path) -> None:
    root = marketplace(
        tmp_path / "m",
        "team-tools",
        [
            entry("here", "./plugins/here", version="1.2.0"),
            entry("root", "./"),
            entry("dot", "."),
            entry("gh", {"source": "github", "repo": "acme/gh-plugin", "ref": "v1"}),
            entry("u", {"source": "url", "url": "https://git.example/u.git", "sha": SHA}),
            entry("up", {"source": "url", "url": "file:///srv/p.git", "path": "sub", "ref": "dev"}),
            entry(
                "sub",
                {"source": "git-subdir", "url": "acme/mono", "path": "plugins/x", "ref": "main"},
            ),
        ],
        owner={"name": "Acme", "email": "a@example.com"},
        metadata={"description": "Tools", "version": "1.0.0"},
    )
    catalog = read_marketplace(root)
    assert (catalog.name, catalog.owner, catalog.description) == ("team-tools", "Acme", "Tools")
    assert (catalog.problem, catalog.warnings) == (None, [])
    sources = {e.name: e.source for e in catalog.entries}
    top = root.resolve()
    assert sources == {
        "here": RelativeSource(top / "plugins/here", "./plugins/here"),
        "root": RelativeSource(top, "./"),
        "dot": RelativeSource(top, "."),
        "gh": GitHubSource("acme/gh-plugin", "v1"),
        "u": UrlSource("https://git.example/u.git", sha=SHA),
        "up": UrlSource("file:///srv/p.git", "dev", path="sub"),
        "sub": GitSubdirSource("acme/mono", "plugins/x", "main"),
    }
    here = catalog.entry("here")
    assert here is not None
    assert (here.version, here.strict, here.description) == ("1.2.0", True, "The here plugin.")


def test_plugin_root_applies_to_bare_names_only(tmp_path: Path) -> None:
    entries = [entry("a", "a"), entry("b", "./plugins/b"), entry("c", "./c")]
    root = marketplace(tmp_path / "m", "m", entries, metadata={"pluginRoot": "./plugins"})
    sources = {e.name: e.source for e in read_marketplace(root).entries}
    top = root.resolve()
    assert sources["a"] == RelativeSource(top / "plugins/a", "a")
    assert sources["b"] == RelativeSource(top / "plugins/b", "./plugins/b")
    assert sources["c"] == RelativeSource(top / "c", "./c")
    without = read_marketplace(marketplace(tmp_path / "n", "n", [entry("a", "a")]))
    assert without.entries[0].source is None
    assert without.warnings == [
        f"marketplace n: {MARKETPLACE}: a: source: 'a': a relative source starts with './' "
        "(or set metadata.pluginRoot)"
    ]


def test_bad_sources_are_one_warning_each_and_the_rest_load(tmp_path: Path) -> None:
    entries = [
        entry("ok", "./ok"),
        entry("gh-string", "github:acme/repo/plugins/x"),
        entry("up", "./../elsewhere"),
        entry("npm", {"source": "npm", "package": "x"}),
        entry("bad-sha", {"source": "github", "repo": "a/b", "sha": "abc"}),
        entry("no-repo", {"source": "github", "repo": "just-a-name"}),
        {"description": "no name"},
        entry("ok", "./again"),
        entry("strict", "./s", strict="yes"),
    ]
    catalog = read_marketplace(marketplace(tmp_path / "m", "m", entries))
    where = f"marketplace m: {MARKETPLACE}"
    assert catalog.warnings == [
        f"{where}: gh-string: source: 'github:acme/repo/plugins/x' is not a valid source "
        '(write {"source": "github", "repo": ...})',
        f"{where}: up: source: './../elsewhere' is outside the marketplace; refused",
        f"{where}: npm: source: 'npm' sources are not supported",
        f"{where}: bad-sha: source: sha 'abc' is not a full 40-character commit",
        f"{where}: no-repo: source: github repo 'just-a-name' is not owner/repo",
        f"{where}: plugins[6]: not an entry with a name; ignored",
        f"{where}: ok: listed twice; the first is kept",
        f"{where}: strict: strict: 'yes' is not true/false; true is used",
    ]
    assert [e.name for e in catalog.entries if e.source is not None] == ["ok", "strict"]
    assert len(catalog.entries) == 7


def test_a_relative_source_through_a_symlink_out_is_refused(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    root = marketplace(tmp_path / "m", "m", [entry("x", "./link")])
    (root / "link").symlink_to(tmp_path / "outside")
    catalog = read_marketplace(root)
    assert catalog.entries[0].source is None
    assert "'./link' is outside the marketplace; refused" in catalog.warnings[0]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            '{"name": "m", "owner": {"name": "o"}, "plugins": [\n'
            '  {"name": "a", "version": "1"\n\n  "source": "./"}]}',
            "not valid JSON (line 4 column 3: Expecting ',' delimiter)",
        ),
        (
            '{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "a", "source": "./"},]}',
            "not valid JSON (line 1 column 81: Expecting value)",
        ),
        (
            "../../other/.claude-plugin/marketplace.json",
            "holds one line of text, not JSON ('../../other/.claude-plugin/marketplace.json': a "
            "symlink committed as a file?)",
        ),
        ('{"owner": {"name": "o"}, "plugins": []}', "has no name"),
        ('{"name": 5, "owner": {"name": "o"}, "plugins": []}', "has no name"),
        ('["not", "an", "object"]', "not a JSON object"),
    ],
)
def test_a_file_that_cannot_be_a_marketplace_is_one_problem(
    tmp_path: Path, text: str, problem: str
) -> None:
    catalog = read_marketplace(raw_marketplace(tmp_path / "broken", text))
    assert catalog.problem == f"marketplace broken: {MARKETPLACE}: {problem}"
    assert (catalog.entries, catalog.warnings) == ((), [])


def test_a_missing_marketplace_file_is_one_problem(tmp_path: Path) -> None:
    catalog = read_marketplace(write_tree(tmp_path / "empty", {}))
    assert catalog.problem is not None
    assert catalog.problem.startswith(f"marketplace empty: {MARKETPLACE}: cannot be read")


@pytest.mark.parametrize(
    ("origin", "refused"),
    [
        (None, True),  # a local folder
        ("someone/claude-code-plugins", True),
        ("https://github.com/someone/anthropics.git", True),
        ("anthropics/claude-code", False),
        ("https://github.com/anthropics/claude-code.git", False),
        ("git@github.com:anthropics/claude-plugins-official.git", False),
    ],
)
def test_reserved_names_are_refused_unless_from_anthropics(
    tmp_path: Path, origin: str | None, refused: bool
) -> None:
    root = marketplace(tmp_path / "m", "claude-code-plugins", [entry("a", "./a")])
    catalog = read_marketplace(root, origin=origin)
    assert (catalog.problem is not None) is refused
    assert (len(catalog.entries) == 0) is refused
    assert is_anthropic(origin) is not refused


@pytest.mark.parametrize("name", ["claude-plugins-official", "agent-skills", "claudeai-x", "npm"])
def test_other_reserved_names(tmp_path: Path, name: str) -> None:
    catalog = read_marketplace(marketplace(tmp_path / "m", name, []), origin="acme/market")
    assert catalog.problem == (
        f"marketplace {name}: {MARKETPLACE}: name {name!r} is reserved for Anthropic's "
        "marketplaces; refused"
    )


def test_names_with_dots_load_and_names_with_slashes_do_not(tmp_path: Path) -> None:
    assert read_marketplace(marketplace(tmp_path / "a", "noahlz.github.io", [])).problem is None
    assert read_marketplace(marketplace(tmp_path / "b", "a/b", [])).problem is not None


def test_entry_component_fields_and_strict_are_kept_as_written(tmp_path: Path) -> None:
    lsp = {"go": {"command": "gopls", "extensionToLanguage": {".go": "go"}}}
    entries = [
        entry("a", "./", strict=False, skills=["./skills/x"], lspServers=lsp, category="dev"),
        entry("b", "./b", commands=["./commands/c.md"], hooks="./hooks/hooks.json", id="x"),
    ]
    catalog = read_marketplace(marketplace(tmp_path / "m", "m", entries))
    a, b = catalog.entries
    assert (a.strict, dict(a.components)) == (False, {"skills": ["./skills/x"], "lspServers": lsp})
    assert a.fields["category"] == "dev"
    assert (b.strict, sorted(b.components)) == (True, ["commands", "hooks"])
    assert catalog.warnings == []
