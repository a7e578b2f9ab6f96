"""read_file, write_file, edit_file, glob and grep, called through dispatch (no gate)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from agent_cli.core.payloads import DiffDisplay
from agent_cli.core.tool_contract import AnyTool, OpenGate, ToolContext, ToolInput, ToolResult
from agent_cli.runtime.assembly import base_tools
from agent_cli.tools.edit_file import replace_text
from agent_cli.tools.glob import compile_glob
from agent_cli.tools.read_file import split_lines
from agent_cli.tools.registry import ToolRegistry
from tests.sandbox_support import shell_wrapper
from tests.unit.tool_helpers import call, make_ctx


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return make_ctx(tmp_path)


def run(ctx: ToolContext, name: str, **args: object) -> ToolResult:
    return call(ToolRegistry(base_tools(shell_wrapper=shell_wrapper)), ctx, name, **args)


def test_write_creates_parents_and_counts_as_read(ctx: ToolContext):
    result = run(ctx, "write_file", path="pkg/mod/a.py", content="x = 1\n")
    assert not result.is_error, result.content
    path = ctx.workspace / "pkg/mod/a.py"
    assert path.read_text() == "x = 1\n"
    assert result.display is not None
    assert isinstance(result.display, DiffDisplay)
    assert "+x = 1" in result.display.diff
    assert ctx.touched == {path}
    edited = run(ctx, "edit_file", path="pkg/mod/a.py", old_string="1", new_string="2")
    assert not edited.is_error, edited.content
    assert path.read_text() == "x = 2\n"


def test_edit_refuses_a_file_never_read(ctx: ToolContext):
    (ctx.workspace / "a.txt").write_text("hello\n")
    result = run(ctx, "edit_file", path="a.txt", old_string="hello", new_string="bye")
    assert result.is_error
    assert "read_file" in result.content
    assert (ctx.workspace / "a.txt").read_text() == "hello\n"


def test_edit_not_found_ambiguous_and_replace_all(ctx: ToolContext):
    (ctx.workspace / "a.txt").write_text("x = 1\nx = 1\n")
    run(ctx, "read_file", path="a.txt")
    missing = run(ctx, "edit_file", path="a.txt", old_string="y = 1", new_string="z")
    assert missing.is_error
    assert "not found" in missing.content
    twice = run(ctx, "edit_file", path="a.txt", old_string="x = 1", new_string="x = 2")
    assert twice.is_error
    assert "occurs 2 times" in twice.content
    assert (ctx.workspace / "a.txt").read_text() == "x = 1\nx = 1\n"
    both = run(
        ctx, "edit_file", path="a.txt", old_string="x = 1", new_string="x = 2", replace_all=True
    )
    assert not both.is_error
    assert "2 replacements" in both.content
    assert (ctx.workspace / "a.txt").read_text() == "x = 2\nx = 2\n"


def test_edit_refuses_a_file_changed_since_read(ctx: ToolContext):
    path = ctx.workspace / "a.txt"
    path.write_text("one\n")
    run(ctx, "read_file", path="a.txt")
    path.write_text("one\ntwo\n")
    result = run(ctx, "edit_file", path="a.txt", old_string="one", new_string="1")
    assert result.is_error
    assert "changed on disk" in result.content
    assert path.read_text() == "one\ntwo\n"


def test_edit_keeps_crlf_line_endings(ctx: ToolContext):
    path = ctx.workspace / "w.txt"
    path.write_bytes(b"a\r\nb\r\n")
    run(ctx, "read_file", path="w.txt")
    assert not run(ctx, "edit_file", path="w.txt", old_string="b", new_string="c").is_error
    assert path.read_bytes() == b"a\r\nc\r\n"


def test_read_file_numbering_paging_and_refusals(ctx: ToolContext):
    (ctx.workspace / "lines.txt").write_text("".join(f"l{i}\n" for i in range(1, 11)))
    page = run(ctx, "read_file", path="lines.txt", offset=3, limit=2)
    assert page.content.startswith("     3\tl3\n     4\tl4")
    assert "continue with offset=5" in page.content
    (ctx.workspace / "bin.dat").write_bytes(b"\x00\x01\x02")
    assert "binary" in run(ctx, "read_file", path="bin.dat").content
    assert "directory" in run(ctx, "read_file", path=".").content
    assert "past the end" in run(ctx, "read_file", path="lines.txt", offset=50).content
    os.mkfifo(ctx.workspace / "pipe")
    (ctx.workspace / "dangling").symlink_to("gone.txt")
    assert "not a regular file" in run(ctx, "read_file", path="pipe").content
    for missing in ("gone.txt", "dangling", "lines.txt/under"):
        assert "File not found" in run(ctx, "read_file", path=missing).content


def test_glob_newest_first_gitignore_and_state_folders(ctx: ToolContext):
    ws = ctx.workspace
    (ws / ".gitignore").write_text("ignored.py\nbuild/\n")
    for name in ("old.py", "src/new.py", "ignored.py", "build/gen.py", "notes/n.py", "src/a.txt"):
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text("x\n")
    past = time.time() - 1000
    os.utime(ws / "old.py", (past, past))
    assert run(ctx, "glob", pattern="**/*.py").content.splitlines() == ["src/new.py", "old.py"]
    assert run(ctx, "glob", pattern="*.py").content.splitlines() == ["old.py"]
    assert run(ctx, "glob", pattern="*.py", path="notes").content == "notes/n.py"
    assert run(ctx, "glob", pattern="../*.py").is_error


def test_glob_patterns():
    assert compile_glob("**/*.py").fullmatch("a/b/c.py")
    assert compile_glob("**/*.py").fullmatch("c.py")
    assert not compile_glob("*.py").fullmatch("a/c.py")
    assert compile_glob("src/*.{ts,tsx}").fullmatch("src/x.tsx")
    assert compile_glob("test_?.py").fullmatch("test_1.py")
    assert compile_glob("[!a]*.md").fullmatch("b.md")
    assert not compile_glob("[!a]*.md").fullmatch("a.md")


def test_grep_modes_and_state_folders(ctx: ToolContext):
    ws = ctx.workspace
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("one\nNeedle here\nthree\n")
    (ws / "b.md").write_text("needle\n")
    (ws / "notes").mkdir()
    (ws / "notes" / "n.md").write_text("needle in notes\n")
    assert run(ctx, "grep", pattern="needle").content.splitlines() == ["b.md"]
    found = run(ctx, "grep", pattern="needle", ignore_case=True).content.splitlines()
    assert found == ["b.md", "src/a.py"]
    content = run(ctx, "grep", pattern="Needle", output_mode="content", context=1).content
    assert content.splitlines() == ["src/a.py:1-one", "src/a.py:2:Needle here", "src/a.py:3-three"]
    count = run(ctx, "grep", pattern="needle", output_mode="count", glob="*.md").content
    assert count.startswith("b.md: 1")
    assert run(ctx, "grep", pattern="needle", path="notes").content == "notes/n.md"
    assert "No matches" in run(ctx, "grep", pattern="absent").content
    bad = run(ctx, "grep", pattern="(unclosed")
    assert bad.is_error
    assert "regex" in bad.content


def test_grep_without_rg_is_a_clear_error(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr("agent_cli.tools.rg.sys.executable", str(ctx.workspace / "python"))
    monkeypatch.setenv("PATH", str(ctx.workspace))
    result = run(ctx, "grep", pattern="x")
    assert result.is_error
    assert "pip install ripgrep==14.1.0" in result.content


def test_crlf_replace_and_line_split():
    assert replace_text("a\r\nb\r\nc\r\n", "a\nb", "x\ny") == (1, "x\r\ny\r\nc\r\n")
    mixed = "a\r\nb\nc\n"  # not all CRLF: matched as written
    assert replace_text(mixed, "b\nc", "z") == (1, "a\r\nz\n")
    assert replace_text(mixed, "a\nb", "z") == (0, mixed)
    assert split_lines("one\x0ctwo\u2028\r\nlast") == ["one\x0ctwo\u2028", "last"]
    assert split_lines("") == []


class SwappingGate(OpenGate):
    """Checks the path as the permission check does, then re-points the link it went through
    (another process's doing, between the check and the read)."""

    def __init__(self) -> None:
        self.checked: list[Path] = []

    async def before(self, tool: AnyTool, args: ToolInput, ctx: ToolContext) -> str | None:
        self.checked.append(ctx.resolve(str(getattr(args, "path", ""))))
        link = ctx.workspace / "link"
        link.unlink()
        link.symlink_to(ctx.workspace / "other.txt")
        return None


def test_a_read_acts_on_the_path_its_check_resolved(ctx: ToolContext):
    (ctx.workspace / "seen.txt").write_text("checked\n")
    (ctx.workspace / "other.txt").write_text("swapped in\n")
    (ctx.workspace / "link").symlink_to(ctx.workspace / "seen.txt")
    gate = SwappingGate()
    registry = ToolRegistry(base_tools(shell_wrapper=shell_wrapper), gate)
    read = call(registry, ctx, "read_file", path="link")
    assert gate.checked == [ctx.workspace.resolve() / "seen.txt"]
    assert "checked" in read.content
    assert "swapped" not in read.content
    # a call that may move files resolves again as it runs: it writes where the link is now
    assert not call(registry, ctx, "write_file", path="link", content="new\n").is_error
    assert (ctx.workspace / "other.txt").read_text() == "new\n"
