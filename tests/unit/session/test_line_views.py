"""A view of transcript lines (core/files/line_views.py) read back through read_file: found again
after the transcript lost a line before it, a clear error once its line is gone, and honoured
only inside the transcripts folder it points into."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_cli.core.files.line_views import LineView, is_view, read_view, write_view
from agent_cli.core.tool_contract import ToolContext, ToolResult
from agent_cli.session.transcript import SessionRecord, TranscriptWriter
from agent_cli.tools.read_file import ReadFile, ReadFileInput
from tests.unit.tool_helpers import make_ctx

RESULT = "\n".join(f"line {n}: the saved output" for n in range(60))


def read(ctx: ToolContext, path: Path) -> ToolResult:
    return asyncio.run(ReadFile().run(ReadFileInput(path=str(path)), ctx))


def shown(result: ToolResult) -> str:
    return "\n".join(line.split("\t", 1)[1] for line in str(result.content).split("\n"))


def viewed_result(tmp_path: Path) -> tuple[ToolContext, Path, Path]:
    """A transcript holding one tool result, and a saved output that is a view of it."""
    ctx = make_ctx(tmp_path)
    transcript = ctx.paths.transcript(ctx.session_id)
    writer = TranscriptWriter(transcript)
    writer.append(SessionRecord(id=ctx.session_id, workspace=str(tmp_path), model="m"))
    message = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": RESULT},
    ]}  # fmt: skip
    writer.message(message)
    part = writer.locate(message)
    assert part is not None
    saved = ctx.paths.tool_results(ctx.session_id) / "toolu_1.txt"
    saved.parent.mkdir(parents=True)
    part = part.model_copy(update={"block": 0, "tool_use_id": "toolu_1"})
    write_view(saved, LineView(kind="text", transcript=transcript.name, parts=[part]))
    return ctx, transcript, saved


def test_read_file_shows_a_saved_view_as_the_result_it_stands_for(tmp_path: Path):
    ctx, _, saved = viewed_result(tmp_path)
    assert is_view(saved)
    assert saved.stat().st_size < len(RESULT) / 4
    result = read(ctx, saved)
    assert not result.is_error
    assert shown(result) == RESULT


def test_a_view_finds_its_line_after_the_transcript_lost_its_first_line(tmp_path: Path):
    ctx, transcript, saved = viewed_result(tmp_path)
    transcript.write_bytes(transcript.read_bytes().split(b"\n", 1)[1])  # as `sed -i 1d` does
    result = read(ctx, saved)
    assert not result.is_error
    assert shown(result) == RESULT


def test_a_view_whose_line_is_gone_is_an_error_result_naming_it(tmp_path: Path):
    ctx, transcript, saved = viewed_result(tmp_path)
    first = transcript.read_bytes().split(b"\n", 1)[0]
    transcript.write_bytes(first + b"\n")  # the message line is gone
    result = read(ctx, saved)
    assert result.is_error
    assert "toolu_1.txt" in str(result.content)
    assert "no longer holds" in str(result.content)
    transcript.unlink()
    result = read(ctx, saved)
    assert result.is_error
    assert "gone" in str(result.content)


def test_a_look_alike_outside_the_transcripts_folder_is_just_a_file(tmp_path: Path):
    ctx, _, saved = viewed_result(tmp_path)
    copy = tmp_path / "copied-view.txt"
    copy.write_bytes(saved.read_bytes())
    assert read_view(copy, ctx.paths.transcripts) is None
    result = read(ctx, copy)
    assert not result.is_error
    assert "points into the session's transcript" in str(result.content)


def test_a_view_reads_only_a_transcript_directly_in_its_folder(tmp_path: Path):
    ctx, transcript, saved = viewed_result(tmp_path)
    view = LineView.model_validate_json(saved.read_bytes().split(b"\n", 1)[1])
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_bytes(transcript.read_bytes())
    link = transcript.with_name("linked.jsonl")
    link.symlink_to(outside)
    for name in ("../elsewhere.jsonl", "tool-results/../../elsewhere.jsonl", link.name):
        write_view(saved, view.model_copy(update={"transcript": name}))
        result = read(ctx, saved)
        assert result.is_error, name
        assert "is not here" in str(result.content), name
