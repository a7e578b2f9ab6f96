"""An MCP server's tool as one of ours: the server's name and schema, offered as
`mcp__<server>__<tool>`, run through the same registry, permission gate and result budget.

Each tool gets its own Tool and Input class, so the registry validates the arguments against
the server's JSON schema before the gate asks anyone anything.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from pydantic import ConfigDict, model_validator

from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult

Caller = Callable[[str, str, dict[str, Any]], Awaitable[ToolResult]]
MAX_DESCRIPTION = 2_000


class McpInput(ToolInput):
    """Any JSON object the server's schema accepts."""

    model_config = ConfigDict(extra="allow")
    server_schema: ClassVar[dict[str, Any]] = {}

    @model_validator(mode="before")
    @classmethod
    def _server_schema(cls, data: Any) -> Any:
        if isinstance(data, dict) and cls.server_schema:
            problem = schema_problem(cls.server_schema, data)
            if problem:
                raise ValueError(problem)
        return data


def schema_problem(schema: dict[str, Any], data: dict[str, Any]) -> str | None:
    import jsonschema  # comes with the mcp package

    try:
        validator = jsonschema.validators.validator_for(schema)(schema)
        error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    except jsonschema.exceptions.SchemaError:
        return None  # the server's schema is broken: let the server judge the call
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where + ': ' if where else ''}{error.message}"


class McpTool(Tool[McpInput]):
    """Subclassed once per server tool by `make_tool` (a tool's name is a class attribute)."""

    server: ClassVar[str]
    remote_name: ClassVar[str]
    definition: ClassVar[dict[str, Any]]
    asks_permission: ClassVar[bool] = True  # asked in default mode, like bash (SPEC §12)
    call: ClassVar[Caller]

    async def run(self, args: McpInput, ctx: ToolContext) -> ToolResult:
        return await type(self).call(self.server, self.remote_name, args.model_dump())

    def describe_call(self, args: McpInput) -> str:
        return f"{self.server}: {self.remote_name}"

    def schema(self) -> dict[str, Any]:
        return self.definition


def make_tool(api_name: str, server: str, listed: dict[str, Any], call: Caller) -> McpTool:
    """A tool from the server's `tools/list` entry (its JSON form)."""
    schema = listed.get("inputSchema")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        schema = {"type": "object", "properties": {}}
    annotations = listed.get("annotations") or {}
    description = str(listed.get("description") or listed.get("title") or listed["name"])
    input_model = type(f"McpInput_{api_name}", (McpInput,), {"server_schema": schema})
    attributes = {
        "name": api_name,
        "server": server,
        "remote_name": listed["name"],
        "read_only": annotations.get("readOnlyHint") is True,
        "input_model": input_model,
        "call": staticmethod(call),
        "definition": {
            "name": api_name,
            "description": description[:MAX_DESCRIPTION],
            "input_schema": schema,
        },
    }
    cls: type[McpTool] = type(f"McpTool_{api_name}", (McpTool,), attributes)
    return cls()
