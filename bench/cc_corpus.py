"""Runs every project-file loader over the real Claude Code files in ../shared/cc-corpus and
prints counts: loaded, warned (one line each), raised (must be 0), and a cross-check of the
resolved name, tools and model against the raw front-matter lines, read independently here.

    python bench/cc_corpus.py [--corpus DIR] [--verbose]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agent_cli.core.settings.features import ProjectFilesSettings  # noqa: E402
from agent_cli.ext.project_files import vocabulary as vocab  # noqa: E402
from agent_cli.ext.project_files.claude.settings import (  # noqa: E402
    ClaudeSettings,
    read_settings_file,
)
from agent_cli.ext.project_files.definitions import Definition, KindReader, load_kind  # noqa: E402
from agent_cli.ext.project_files.kinds import AGENTS, COMMANDS, SKILLS  # noqa: E402
from agent_cli.ext.project_files.sources import Root  # noqa: E402

# ../shared beside the checkout (a worktree sits one folder deeper)
CANDIDATES = [REPO.parent / "shared" / "cc-corpus", REPO.parent.parent / "shared" / "cc-corpus"]
DEFAULT_CORPUS = next((c for c in CANDIDATES if c.is_dir()), CANDIDATES[0])
ALIASES = ProjectFilesSettings().model_aliases
PARENT = "parent-model"
CC_TOOL = re.compile(r"\b(mcp__[\w-]+\*?|[A-Z][A-Za-z]+)(?:\([^)]*\))?")


def raw_line(text: str, key: str) -> str | None:
    """The value of `key:` at the left margin of the front matter, as written."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---"):
        return None
    head = text.split("\n---", 1)[0]
    match = re.search(rf"^{re.escape(key)}:[ \t]*(.*)$", head, re.MULTILINE)
    return match.group(1).strip().strip("\"'") if match else None


def check(item: Definition, text: str, kind: str) -> list[str]:
    """What the independent reading of the raw lines disagrees with."""
    problems = []
    name = raw_line(text, "name")
    if kind != "command" and name and re.fullmatch(r"[\w.:@+-]+", name) and name != item.name:
        problems.append(f"name {item.name!r} but the file says {name!r}")
    model = raw_line(text, "model")
    resolved, _ = vocab.resolve_model(item.model, ALIASES, PARENT)
    expected = ALIASES.get((model or "").lower()) or (
        model if (model or "").startswith("claude-") else PARENT
    )
    if resolved != expected:
        problems.append(f"model {resolved!r}, expected {expected!r} from {model!r}")
    key = "tools" if kind == "agent" else "allowed-tools"
    tools = raw_line(text, key)
    if tools and not tools.startswith(("|", ">")):
        for token in CC_TOOL.findall(tools):
            ours = vocab.tool_name(token)
            if ours is not None and not any(t.startswith(ours) for t in item.tools):
                problems.append(f"tool {token} (ours {ours}) missing from {item.tools}")
    return problems


def run_kind(reader: KindReader, folder: Path, verbose: bool) -> Counter[str]:
    counts: Counter[str] = Counter()
    for repo in sorted(p for p in folder.iterdir() if p.is_dir()):
        root = Root(repo, "workspace")
        files = reader.files(repo / reader.folder)
        counts["files"] += len(files)
        try:
            loaded = load_kind(reader, [root])
        except Exception as e:  # the loader must never raise: counted, and the run goes on
            counts["raised"] += 1
            print(f"RAISED {repo.name}: {type(e).__name__}: {e}")
            continue
        counts["warned"] += len(loaded.warnings)
        for warning in loaded.warnings:
            print(f"  warning: {warning}")
        items = [loaded.items[n] for n in loaded.items]
        shadows = sum(len(i.shadows) for i in items)
        counts["loaded"] += len(items) + shadows
        for item in items:
            tally(counts, item)
            for problem in check(item, Path(item.path).read_text(errors="replace"), reader.kind):
                counts["mismatch"] += 1
                print(f"  MISMATCH {item.path}: {problem}")
            if verbose:
                print(
                    f"  {item.kind} {item.name}: tools={item.tools} model={item.model} "
                    f"unavailable={item.unavailable} notes={item.notes}"
                )
    return counts


def tally(counts: Counter[str], item: Definition) -> None:
    counts["with tools"] += bool(item.tools)
    counts["unavailable tools"] += len(item.unavailable)
    counts["YAML failed, read line by line"] += any("not strict YAML" in n for n in item.notes)
    counts["no description"] += not item.description
    counts["ignored keys"] += len(item.ignored)


def run_settings(folder: Path) -> Counter[str]:
    counts: Counter[str] = Counter()
    for path in sorted(folder.glob("*/settings*.json")):
        counts["files"] += 1
        found = ClaudeSettings()
        try:
            read_settings_file(path, "workspace", found)
        except Exception as e:
            counts["raised"] += 1
            print(f"RAISED {path}: {type(e).__name__}: {e}")
            continue
        counts["warned"] += len(found.warnings)
        counts["loaded"] += not found.warnings
        counts["hooks"] += len(found.hooks)
        counts["rules"] += len(found.rules)
        counts["rules mapped to ours"] += sum(bool(r.patterns) for r in found.rules)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"no corpus at {args.corpus}")
    results = {
        "agents": run_kind(AGENTS, args.corpus / "agents", args.verbose),
        "commands": run_kind(COMMANDS, args.corpus / "commands", args.verbose),
        "skills": run_kind(SKILLS, args.corpus / "skills", args.verbose),
        "settings": run_settings(args.corpus / "mcp"),
    }
    keys = sorted({k for c in results.values() for k in c} | {"raised", "mismatch", "warned"})
    print(f"\n{'':32}" + "".join(f"{kind:>10}" for kind in results))
    for key in keys:
        print(f"{key:32}" + "".join(f"{c.get(key, 0):>10}" for c in results.values()))
    failed = sum(c.get("raised", 0) + c.get("mismatch", 0) for c in results.values())
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
