"""Issue 19 through the tools' public entry: hard links out of the workspace (finding 12) and
read_file's bounded window (finding 5), checked against the whole-file reading it replaced."""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agent_cli.tools.file_window import read_window
from agent_cli.tools.read_file import split_lines
from tests.unit.tool_helpers import call, gated_registry, make_ctx


def test_write_and_edit_through_a_hard_link_leave_the_file_outside_unchanged(tmp_path: Path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret config\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    linked = ws / "linked.txt"
    os.link(outside, linked)
    linked.chmod(0o640)
    ctx = make_ctx(ws)
    registry = gated_registry(ctx, "bypass")
    assert not call(registry, ctx, "read_file", path="linked.txt").is_error
    edit = call(registry, ctx, "edit_file", path="linked.txt", old_string="secret", new_string="x")
    assert not edit.is_error, edit.content
    assert outside.read_text() == "secret config\n"
    assert linked.read_text() == "x config\n"
    assert linked.stat().st_mode & 0o777 == 0o640
    os.link(outside, ws / "second.txt")
    write = call(registry, ctx, "write_file", path="second.txt", content="overwritten\n")
    assert not write.is_error, write.content
    assert outside.read_text() == "secret config\n"
    assert (ws / "second.txt").read_text() == "overwritten\n"


def _old_window(data: bytes, start: int, limit: int, keep: int) -> list[tuple[str, int]]:
    lines = split_lines(data.decode("utf-8", errors="replace"))
    return [(line[:keep], max(0, len(line) - keep)) for line in lines[start : start + limit]]


@given(
    data=st.lists(
        st.sampled_from([b"a", b"\n", b"\r\n", b"\xc3\xa9", b"\xff", b"long" * 30, b"\r"]),
        max_size=200,
    ).map(b"".join),
    start=st.integers(0, 30),
    limit=st.integers(1, 30),
)
def test_the_window_shows_what_reading_the_whole_file_showed(data: bytes, start: int, limit: int):
    window = read_window(io.BytesIO(data), start, limit, keep=50)
    assert list(zip(window.lines, window.cut, strict=True)) == _old_window(data, start, limit, 50)
    assert window.total == len(split_lines(data.decode("utf-8", errors="replace")))


def test_a_large_file_is_read_in_pieces_and_a_binary_one_refused_unread(tmp_path: Path):
    big = tmp_path / "big.txt"
    with big.open("wb") as f:
        f.write(b"first\nsecond\nthird\n" + b"more text\n" * 1_000)
        f.truncate(200_000_000)  # a sparse hole: NUL bytes after the first 10 KB of text
        f.seek(0, 2)
        f.write(b"\nlast\n")
    ctx = make_ctx(tmp_path)
    registry = gated_registry(ctx, "bypass")
    result = call(registry, ctx, "read_file", path="big.txt", limit=3)
    assert not result.is_error, result.content
    assert result.content.splitlines()[:3] == ["     1\tfirst", "     2\tsecond", "     3\tthird"]
    assert "continue with offset=4" in result.content
    sparse = tmp_path / "sparse.bin"
    with sparse.open("wb") as f:
        f.truncate(2_000_000_000)
    refused = call(registry, ctx, "read_file", path="sparse.bin", limit=3)
    assert refused.is_error
    assert "binary" in refused.content


@given(
    data=st.lists(
        st.sampled_from([b"a", b"\n", b"\r\n", b"\xc3\xa9", b"long" * 30, b"\r", b"\xe2\x82\xac"]),
        max_size=200,
    ).map(b"".join),
    start=st.integers(0, 30),
    limit=st.integers(0, 30),
    keep=st.integers(0, 130),
)
def test_a_small_file_read_whole_gives_the_window_reading_in_pieces_gave(
    data: bytes, start: int, limit: int, keep: int
):
    # behind a 8 KiB text head the same lines come from the piece-by-piece reading; a file that
    # small is valid UTF-8 here, so it is read whole (one decode, one split)
    padding = b"x" * 9_000 + b"\n"
    whole = read_window(io.BytesIO(data), start, limit, keep)
    pieces = read_window(io.BytesIO(padding + data), start + 1, limit, keep)
    assert (whole.lines, whole.cut) == (pieces.lines, pieces.cut)
    assert whole.total == pieces.total - 1
    assert whole.digest == hashlib.sha256(data).hexdigest()
