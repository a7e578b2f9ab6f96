"""Where sibling patches (diffs from one base) touch the same lines: each hunk's range in the
base file, context included (what `git apply` needs unchanged), compared file by file. A
whole-file change (new, deleted, binary, mode) overlaps any other change to that file."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", re.MULTILINE)
FILE = re.compile(r"^diff --git a/(.+?) b/(.+)$", re.MULTILINE)
WHOLE = (-1, 1 << 62)


@dataclass(frozen=True)
class Overlap:
    path: str
    first: str  # the names of the two patches
    second: str
    lines: str  # "3-7" in the base file, or "the whole file"

    def text(self) -> str:
        return f"{self.path} ({self.lines}) is changed by both {self.first} and {self.second}"


def ranges(patch: str) -> dict[str, list[tuple[int, int]]]:
    """Per file, the base lines [start, end) each hunk covers; WHOLE for a whole-file change."""
    found: dict[str, list[tuple[int, int]]] = {}
    heads = list(FILE.finditer(patch))
    for n, head in enumerate(heads):
        end = heads[n + 1].start() if n + 1 < len(heads) else len(patch)
        section = patch[head.start() : end]
        spans = [
            (int(m[1]), int(m[1]) + max(1, 1 if m[2] is None else int(m[2])))
            for m in HUNK.finditer(section)
        ]
        whole = not spans or re.search(r"^(new|deleted) file mode", section, re.MULTILINE)
        for path in {head[1], head[2]}:
            found.setdefault(path, []).extend([WHOLE] if whole else spans)
    return found


def overlaps(patches: dict[str, str]) -> list[Overlap]:
    """Every pair of `patches` (name -> patch) that touch the same base lines."""
    spans = {name: ranges(patch) for name, patch in patches.items()}
    found = []
    for a, b in combinations(sorted(spans), 2):
        for path in sorted(spans[a].keys() & spans[b].keys()):
            hit = _meeting(spans[a][path], spans[b][path])
            if hit is not None:
                found.append(Overlap(path, a, b, hit))
    return found


def _meeting(ours: list[tuple[int, int]], theirs: list[tuple[int, int]]) -> str | None:
    for s1, e1 in ours:
        for s2, e2 in theirs:
            if s1 < e2 and s2 < e1:
                if WHOLE in ((s1, e1), (s2, e2)):
                    return "the whole file"
                return f"lines {max(s1, s2)}-{min(e1, e2) - 1}"
    return None
