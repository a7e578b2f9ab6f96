"""Runs the plugin loaders over ../shared/plugin-corpus and prints a listing summary: the
marketplaces (entries, source kinds, problems), the plugins (name, components, hook events,
servers, what they run), warnings by kind, and anything that raised (must be 0). The Markdown
components are read with project_files' front-matter reader, as the listings will read them.
Nothing from the corpus is executed.

    python bench/plugin_corpus.py [--corpus DIR] [--verbose]
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agent_cli.ext.plugins.components import load_bundle  # noqa: E402
from agent_cli.ext.plugins.marketplace import (  # noqa: E402
    Entry,
    RelativeSource,
    read_marketplace,
)
from agent_cli.ext.plugins.runs import what_it_runs  # noqa: E402
from agent_cli.ext.project_files.frontmatter import parse  # noqa: E402
from agent_cli.runtime.bundles import Bundle  # noqa: E402

# ../shared beside the checkout (a worktree sits one folder deeper)
CANDIDATES = [
    REPO.parent / "shared" / "plugin-corpus",
    REPO.parent.parent / "shared" / "plugin-corpus",
]
DEFAULT_CORPUS = next((c for c in CANDIDATES if c.is_dir()), CANDIDATES[0])
KINDS = [
    ("timeout in milliseconds", r"looks like milliseconds"),
    ("version disagrees with the entry", r"but the marketplace entry says"),
    ("unknown manifest key", r"not a plugin\.json field"),
    ("entry hooks not inline", r"hooks must be an inline object"),
    ("`github:` string source", r"'github:.*is not a valid source"),
    ("invalid JSON", r"not valid JSON|not JSON"),
    ("reserved name", r"is reserved"),
    ("path leaves the plugin", r"outside the plugin|leads out"),
    ("missing path", r"does not exist"),
    ("hook event / handler", r"not a hook event|no matcher group|without a command"),
]


def kind_of(line: str) -> str:
    return next((kind for kind, pattern in KINDS if re.search(pattern, line)), "other")


def front_matter(paths: list[Path]) -> Counter[str]:
    """How the Markdown files read: with front matter, strict YAML refused, binary."""
    counts: Counter[str] = Counter()
    for path in paths:
        data = path.read_bytes()
        if b"\0" in data[:4096]:
            counts["binary"] += 1
            continue
        fm = parse(data.decode("utf-8", errors="replace"))
        counts["front matter" if fm.has_front_matter else "no front matter"] += 1
        counts["not strict YAML"] += fm.yaml_error is not None
    return counts


def describe(bundle: Bundle) -> str:
    hooks = ",".join(f"{e}:{len(g)}" for e, g in sorted(bundle.hooks.items())) or "-"
    return (
        f"{bundle.name} {bundle.version or '?'}: {len(bundle.commands)} commands, "
        f"{len(bundle.agents)} agents, {len(bundle.skills)} skills, hooks {hooks}, "
        f"mcp {','.join(bundle.mcp_servers) or '-'}, lsp {','.join(bundle.lsp_servers) or '-'}"
    )


def source_kind(entry: Entry) -> str:
    return "invalid" if entry.source is None else type(entry.source).__name__


@dataclass
class Tally:
    warnings: Counter[str] = field(default_factory=Counter)
    sources: Counter[str] = field(default_factory=Counter)
    markdown: Counter[str] = field(default_factory=Counter)
    raised: int = 0
    loaded: int = 0
    runs: int = 0

    def warn(self, line: str, show: bool) -> None:
        self.warnings[kind_of(line)] += 1
        if show:
            print(f"  ! {line}")


def marketplaces(
    corpus: Path, rows: list[dict[str, str]], tally: Tally, verbose: bool
) -> dict[Path, Entry]:
    """Lists each marketplace; the entries whose folder is here, by folder."""
    entries: dict[Path, Entry] = {}
    print("# Marketplaces")
    for row in (r for r in rows if r["kind"] == "marketplace"):
        root = (corpus / row["local_path"]).parent.parent
        try:
            catalog = read_marketplace(root, origin=row["repo"])
        except Exception as e:  # the loader must never raise: counted, and the run goes on
            tally.raised += 1
            print(f"RAISED {row['local_path']}: {type(e).__name__}: {e}")
            continue
        kinds = Counter(source_kind(e) for e in catalog.entries)
        tally.sources.update(kinds)
        listed = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "-"
        name = catalog.name or "(none)"
        print(f"- {name} ({row['repo']}): {len(catalog.entries)} entries ({listed})")
        if catalog.problem:
            tally.warn(catalog.problem, True)
        for line in catalog.warnings:
            tally.warn(line, verbose)
        for entry in catalog.entries:
            if isinstance(entry.source, RelativeSource):
                entries.setdefault(entry.source.path, entry)
    return entries


def plugins(corpus: Path, rows: list[dict[str, str]], tally: Tally, verbose: bool) -> None:
    entries = marketplaces(corpus, rows, tally, verbose)
    print("\n# Plugins")
    for row in (r for r in rows if r["kind"] == "plugin"):
        root = (corpus / row["local_path"]).resolve()
        try:
            bundle, lines = load_bundle(
                root, entry=entries.get(root), source=row["repo"], scope="user", data=root / ".data"
            )
            ran = what_it_runs(bundle, expand=False)
        except Exception as e:
            tally.raised += 1
            print(f"RAISED {row['local_path']}: {type(e).__name__}: {e}")
            continue
        tally.loaded += 1
        tally.runs += len(ran)
        files = [c.path for c in bundle.commands if c.path] + list(bundle.agents)
        files += [p / "SKILL.md" for p in bundle.skills if (p / "SKILL.md").is_file()]
        tally.markdown += front_matter(files)
        print(f"- {describe(bundle)}; runs {len(ran)}; {len(lines)} warnings")
        for line in lines:
            tally.warn(line, verbose)
        if verbose:
            print("".join(f"  > {r[:140]}\n" for r in ran), end="")


def run(corpus: Path, verbose: bool) -> int:
    with (corpus / "MANIFEST.tsv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    tally = Tally()
    plugins(corpus, rows, tally, verbose)
    total = sum(r["kind"] == "plugin" for r in rows)
    print("\n# Summary")
    print(f"plugins loaded: {tally.loaded} of {total}; raised: {tally.raised}")
    print(f"entries by source kind: {dict(sorted(tally.sources.items()))}")
    print(f"Markdown components: {dict(sorted(tally.markdown.items()))}")
    print(f"lines consent would show: {tally.runs}")
    print("warnings by kind:")
    for kind, count in tally.warnings.most_common():
        print(f"  {count:3d}  {kind}")
    return 1 if tally.raised else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--verbose", action="store_true", help="every warning and what each runs")
    args = parser.parse_args()
    if not (args.corpus / "MANIFEST.tsv").is_file():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    return run(args.corpus, args.verbose)


if __name__ == "__main__":
    sys.exit(main())
