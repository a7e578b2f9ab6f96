"""No file tool writes outside the workspace or into the state folders, in any mode."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_cli.core.tool_contract import ToolContext
from agent_cli.runtime.assembly import base_tools
from agent_cli.tools.registry import ToolRegistry
from tests.sandbox_support import shell_wrapper
from tests.unit.tool_helpers import ScriptedApprover, call, gated_registry, make_ctx

MODES = ["default", "accept-edits", "bypass", "plan", "no-gate"]


def escape_corpus(tmp_path: Path) -> tuple[Path, list[str]]:
    """A workspace beside an `outside` folder, and paths that lead out of it."""
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "sub").mkdir(parents=True)
    outside.mkdir()
    (outside / "target.txt").write_text("outside original\n")
    (ws / "link_out").symlink_to(outside / "target.txt")
    (ws / "linkdir").symlink_to(outside, target_is_directory=True)
    (ws / "dangling").symlink_to(outside / "dangle.txt")
    for folder in (".transcripts", "notes", "logs"):
        (ws / folder).mkdir()
        (ws / folder / "kept.txt").write_text("state\n")
    corpus = [
        "../x.txt",
        str(outside / "abs.txt"),
        str(outside / "target.txt"),
        "link_out",
        "linkdir/new.txt",
        "linkdir/target.txt",
        "dangling",
        "sub/../../x.txt",
        "sub/../../outside/target.txt",
        f"{ws}/sub/../../outside/y.txt",
        ".transcripts/kept.txt",
        "notes/kept.txt",
        "logs/new.log",
        "notes/../logs/kept.txt",
    ]
    return ws, corpus


def snapshot(root: Path) -> dict[str, str]:
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = Path(dirpath) / name
            if not p.is_symlink():
                out[str(p)] = p.read_text()
    return out


def registry_for(mode: str, ctx: ToolContext) -> ToolRegistry:
    if mode == "no-gate":
        return ToolRegistry(base_tools(shell_wrapper=shell_wrapper))
    return gated_registry(ctx, mode, ScriptedApprover("always"))


@pytest.mark.parametrize("mode", MODES)
def test_write_and_edit_refused_for_every_escape(tmp_path: Path, mode: str):
    ws, corpus = escape_corpus(tmp_path)
    before = snapshot(tmp_path)
    ctx = make_ctx(ws)
    reader = gated_registry(make_ctx(ws), "bypass")
    for raw in corpus:  # edit_file's read-first guard must not be what stops the edit
        call(reader, ctx, "read_file", path=raw)
    registry = registry_for(mode, ctx)
    for raw in corpus:
        written = call(registry, ctx, "write_file", path=raw, content="escaped\n")
        assert written.is_error, raw
        assert written.content.startswith("Refused"), (raw, written.content)
        edited = call(
            registry, ctx, "edit_file", path=raw, old_string="original", new_string="escaped"
        )
        assert edited.is_error, raw
        assert edited.content.startswith("Refused"), (raw, edited.content)
    assert snapshot(tmp_path) == before
    assert ctx.touched == set()


def test_inside_the_workspace_still_works_in_bypass(tmp_path: Path):
    ws, _ = escape_corpus(tmp_path)
    ctx = make_ctx(ws)
    registry = gated_registry(ctx, "bypass")
    assert not call(registry, ctx, "write_file", path="sub/../ok.txt", content="ok\n").is_error
    assert (ws / "ok.txt").read_text() == "ok\n"
