"""MCP results as content blocks, and the tool search over many tools."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import pytest

from agent_cli.core.tool_contract import ToolResult
from agent_cli.ext.mcp.results import to_tool_result
from agent_cli.ext.mcp.search import Candidate, McpToolSearch, McpToolSearchInput, rank
from agent_cli.ext.mcp.tool import make_tool

PNG = base64.b64encode(b"\x89PNG fake").decode()


def test_each_content_kind_maps_to_what_the_model_reads():
    result = to_tool_result(
        {
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": PNG, "mimeType": "image/png"},
                {"type": "image", "data": PNG, "mimeType": "image/tiff"},
                {"type": "resource", "resource": {"uri": "file:///a", "text": "body"}},
                {
                    "type": "resource",
                    "resource": {"uri": "file:///b", "blob": PNG, "mimeType": "application/pdf"},
                },
                {"type": "resource_link", "uri": "file:///c", "name": "c"},
                {"type": "audio", "data": PNG, "mimeType": "audio/wav"},
            ]
        },
        "srv: t",
    )
    assert result.blocks == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    ]
    text = result.content
    assert text.startswith("hello\n[image of type image/tiff omitted")
    assert "[resource file:///a]\nbody" in text
    assert "[binary resource file:///b (application/pdf" in text
    assert "[resource link c <file:///c>]" in text
    assert "audio (audio/wav) omitted" in text
    assert not result.is_error


def test_is_error_and_structured_content_without_text():
    failed = to_tool_result({"content": [{"type": "text", "text": "boom"}], "isError": True}, "t")
    assert (failed.is_error, failed.content) == (True, "boom")
    structured = to_tool_result({"content": [], "structuredContent": {"rows": [1, 2]}}, "t")
    assert structured.content == '{\n  "rows": [\n    1,\n    2\n  ]\n}'
    assert to_tool_result({"content": []}, "t").content == "(no output)"
    bad_image = to_tool_result(
        {"content": [{"type": "image", "data": "%%%", "mimeType": "image/png"}]}, "t"
    )
    assert bad_image.blocks == []
    assert "not valid base64" in bad_image.content


def test_server_schema_validates_arguments_before_anything_runs():
    async def never(server: str, tool: str, args: dict[str, object]) -> ToolResult:
        raise AssertionError("must not be called")

    listed = {
        "name": "q",
        "inputSchema": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
    }
    tool = make_tool("mcp__s__q", "s", listed, never)
    assert tool.input_model.model_validate({"n": 3}).model_dump() == {"n": 3}
    with pytest.raises(ValueError, match="n: 'three' is not of type 'integer'"):
        tool.input_model.model_validate({"n": "three"})
    assert tool.schema()["input_schema"] == listed["inputSchema"]


def test_search_ranks_and_selects(tmp_path: Path):
    candidates = [
        Candidate("mcp__gh__create_issue", "Create an issue in a repository"),
        Candidate("mcp__gh__list_pulls", "List pull requests"),
        Candidate("mcp__db__query", "Run a SQL query"),
    ]
    assert [c.name for c in rank("sql query", candidates, 5)] == ["mcp__db__query"]
    assert rank("mcp__gh__list_pulls", candidates, 1)[0].name == "mcp__gh__list_pulls"
    chosen: list[str] = []
    search = McpToolSearch(lambda: candidates, chosen.extend)
    result = asyncio.run(search.run(McpToolSearchInput(query="issue repository"), None))  # type: ignore[arg-type]
    assert chosen == ["mcp__gh__create_issue"]
    assert "offered from your next request on" in result.content
