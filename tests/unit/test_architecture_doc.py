"""docs/architecture.md's path from `agent run -p` to the first request names files and lines a
newcomer reads in order: each `path:line` must still be where that function or class begins."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| `(?P<path>agent_cli/[\w/]+\.py):(?P<line>\d+)` \| `(?P<name>\w+)` \|")


def path_rows() -> list[tuple[str, int, str]]:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("### The spine's path from `agent run -p` to the first request", 1)[1]
    return [
        (m["path"], int(m["line"]), m["name"])
        for line in section.split("\n## ", 1)[0].splitlines()
        if (m := ROW.match(line))
    ]


def test_the_documented_path_points_at_the_definitions_it_names() -> None:
    rows = path_rows()
    assert len(rows) >= 10, "the path's table was not found"
    wrong = []
    for path, number, name in rows:
        lines = (REPO / path).read_text(encoding="utf-8").splitlines()
        found = number <= len(lines) and re.match(
            rf"\s*(async\s+def|def|class)\s+{name}\b", lines[number - 1]
        )
        if not found:
            starts = [
                i + 1
                for i, text in enumerate(lines)
                if re.match(rf"\s*(async\s+def|def|class)\s+{name}\b", text)
            ]
            wrong.append(f"{path}:{number} `{name}` (defined at {starts or 'nowhere'})")
    assert not wrong, "docs/architecture.md's path is out of date: " + "; ".join(wrong)
