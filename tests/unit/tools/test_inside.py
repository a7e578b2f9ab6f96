"""`inside` and `display_path` read containment off the paths' text (they are asked of every
call's path): for any pair they answer what pathlib's `is_relative_to` and `relative_to` do,
the double-slash root and relative roots included."""

from __future__ import annotations

from pathlib import Path

from agent_cli.tools.fs import display_path, inside
from tests.unit.tool_helpers import make_ctx

PATHS = [
    "/", "//", "///", "/a", "/a/b", "/ab", "/a/b/c", "//a", "//a/b", "/a/", "a", "a/b", ".", "",
    "/a/../b", "/a/./b", "/ä/b", "/a b/c", "/a\\b", "/a/b\\c", "/a/bc", "/a/b/",
]  # fmt: skip


def test_inside_answers_what_is_relative_to_answers_for_every_pair():
    for raw_path in PATHS:
        for raw_root in PATHS:
            path, root = Path(raw_path), Path(raw_root)
            assert inside(path, root) == (path == root or path.is_relative_to(root)), (
                raw_path,
                raw_root,
            )


def test_display_path_is_relative_inside_the_workspace_and_absolute_outside(tmp_path: Path):
    ctx = make_ctx(tmp_path)
    root = ctx.workspace_root()
    for path in [root, root / "a", root / "a" / "b.txt", root.parent, root.parent / "other",
                 Path(str(root) + "x") / "f", Path("/")]:  # fmt: skip
        was = (
            str(path.relative_to(root)) if path != root and path.is_relative_to(root) else str(path)
        )
        assert display_path(ctx, path) == was, path
