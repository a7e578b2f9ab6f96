"""An extension's tool under the permission modes (issue 58): one that changes something is
asked for as an MCP server's tool is, refused in plan mode and denied headless; a read-only
one runs unasked."""

from __future__ import annotations

from pathlib import Path

from agent_cli.runtime.extensions import ExtensionTool, ToolContext, ToolInput, ToolResult
from agent_cli.tools.registry import ToolRegistry
from tests.unit.tool_helpers import ScriptedApprover, call, gated_registry, make_ctx


class NoteInput(ToolInput):
    text: str


class Note(ExtensionTool[NoteInput]):
    name = "note_down"
    description = "Write a line into notes.txt."
    input_model = NoteInput

    async def run(self, args: NoteInput, ctx: ToolContext) -> ToolResult:
        with (ctx.workspace / "notes.txt").open("a") as f:
            f.write(args.text + "\n")
        return ToolResult("noted")


class Peek(ExtensionTool[NoteInput]):
    name = "peek"
    description = "Say what it was given."
    input_model = NoteInput
    read_only = True

    async def run(self, args: NoteInput, ctx: ToolContext) -> ToolResult:
        return ToolResult(args.text)


def registry(workspace: Path, mode: str, approver: ScriptedApprover | None = None):
    ctx = make_ctx(workspace)
    return gated_registry(ctx, mode, approver).with_tools(Note(), Peek()), ctx


def notes(workspace: Path) -> str:
    path = workspace / "notes.txt"
    return path.read_text() if path.exists() else ""


def test_a_tool_that_changes_something_is_asked_for(tmp_path: Path):
    approver = ScriptedApprover("deny")
    tools, ctx = registry(tmp_path, "default", approver)
    result = call(tools, ctx, "note_down", text="x")
    assert result.is_error
    assert [r.tool for r in approver.asked] == ["note_down"]
    assert notes(tmp_path) == ""
    assert call(tools, ctx, "peek", text="y").content == "y"  # read-only: unasked
    assert [r.tool for r in approver.asked] == ["note_down"]


def test_headless_denies_it_and_plan_mode_refuses_it(tmp_path: Path):
    tools, ctx = registry(tmp_path, "default")
    assert call(tools, ctx, "note_down", text="x").is_error
    planned, ctx = registry(tmp_path, "plan", ScriptedApprover("allow"))
    refused = call(planned, ctx, "note_down", text="x")
    assert refused.is_error
    assert "plan" in refused.content.lower()
    assert call(planned, ctx, "peek", text="y").content == "y"
    assert notes(tmp_path) == ""


def test_bypass_runs_it(tmp_path: Path):
    tools, ctx = registry(tmp_path, "bypass")
    assert call(tools, ctx, "note_down", text="x").content == "noted"
    assert notes(tmp_path) == "x\n"


def test_its_schema_is_its_own_description_and_input(tmp_path: Path):
    (schema,) = [s for s in ToolRegistry([Note()]).schemas if s["name"] == "note_down"]
    assert schema == {
        "name": "note_down",
        "description": "Write a line into notes.txt.",
        "input_schema": {
            "additionalProperties": False,
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "type": "object",
        },
    }
