"""`mcp_tool_search`: when the MCP tools' schemas would pass their budget, the model gets this
instead of them; the tools it finds are offered from its next request on."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from pydantic import Field

from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult

WORD = re.compile(r"[a-z0-9]+")


class McpToolSearchInput(ToolInput):
    query: str = Field(
        min_length=1, description="Words naming what the tool should do, or a tool's name."
    )
    limit: int = Field(default=5, ge=1, le=20, description="How many tools to load at most.")


@dataclass(frozen=True)
class Candidate:
    name: str
    line: str  # one-line description


def rank(query: str, candidates: list[Candidate], limit: int) -> list[Candidate]:
    """Exact names first, then by how many query words the name and description share."""
    words = set(WORD.findall(query.lower()))
    exact = [c for c in candidates if c.name in query.split()]
    scored = []
    for c in candidates:
        text = set(WORD.findall(f"{c.name} {c.line}".lower()))
        score = len(words & text)
        if score and c not in exact:
            scored.append((-score, c.name, c))
    return [*exact, *(c for _, _, c in sorted(scored))][:limit]


class McpToolSearch(Tool[McpToolSearchInput]):
    name: ClassVar[str] = "mcp_tool_search"
    input_model = McpToolSearchInput
    read_only: ClassVar[bool] = True

    def __init__(
        self, candidates: Callable[[], list[Candidate]], select: Callable[[list[str]], None]
    ) -> None:
        self.candidates, self.select = candidates, select

    async def run(self, args: McpToolSearchInput, ctx: ToolContext) -> ToolResult:
        found = rank(args.query, self.candidates(), args.limit)
        if not found:
            return ToolResult(
                f"No MCP tool matches {args.query!r}. Try other words.",
                summary="mcp_tool_search: no match",
            )
        self.select([c.name for c in found])
        lines = [f"- {c.name}: {c.line}" for c in found]
        text = "These MCP tools are offered from your next request on:\n" + "\n".join(lines)
        return ToolResult(text, summary=f"mcp_tool_search: {len(found)} found")

    def describe_call(self, args: McpToolSearchInput) -> str:
        return f"mcp_tool_search {args.query}"
