"""Reads every `.mcp.json` of the shared corpus the way the agent does, and reports per file
the servers resolved and the ones skipped (with the one line a user would see).

    python bench/mcp_corpus.py [CORPUS_DIR]

The corpus holds third-party files: they are read where they are, never copied here. Exits 1
if reading any file raised (it must not).
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

from common import REPO

from agent_cli.ext.mcp.servers import entries_from, read_servers_file


def corpus_dir(argv: list[str]) -> Path:
    if argv:
        return Path(argv[0])
    for base in (REPO.parent, REPO.parent.parent):
        candidate = base / "shared" / "cc-corpus" / "mcp"
        if candidate.is_dir():
            return candidate
    raise SystemExit("corpus not found: give its directory (…/cc-corpus/mcp)")


def main(argv: list[str]) -> int:
    root = corpus_dir(argv)
    env = {"HOME": "/home/user", "PATH": "/usr/bin:/bin"}  # no secrets: defaults and misses show
    files = sorted(root.rglob(".mcp.json"))
    totals = {"files": 0, "resolved": 0, "skipped": 0, "raised": 0}
    for path in files:
        totals["files"] += 1
        name = path.relative_to(root)
        try:
            raw, lines = read_servers_file(path)
            loaded = entries_from(raw, name, "project", env)
        except Exception:  # counted, not hidden: the reader must never raise
            totals["raised"] += 1
            print(f"{name}: RAISED\n{traceback.format_exc()}")
            continue
        totals["resolved"] += len(loaded.servers)
        totals["skipped"] += len(loaded.skipped) + len(lines)
        kinds = ", ".join(f"{e.name} ({e.spec.transport})" for e in loaded.servers) or "none"
        print(f"{name}: {len(loaded.servers)} resolved: {kinds}")
        for line in [*lines, *loaded.skipped]:
            print(f"    skipped: {line}")
    print(
        f"\n{totals['files']} files, {totals['resolved']} servers resolved, "
        f"{totals['skipped']} skipped with a line, {totals['raised']} raised"
    )
    return 1 if totals["raised"] else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
