"""The tool set offered to the model, and dispatch: validate, gate, run, post-process.

Dispatch never raises: every failure becomes an `is_error` result telling the model what to fix.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from functools import cached_property
from typing import Any

from pydantic import ValidationError

from agent_cli.paths import make_dirs, result_file_stem
from agent_cli.prompts import load_prompt
from agent_cli.redaction import redact as redact
from agent_cli.redaction import redact_value
from agent_cli.tool_contract import (
    AnyTool,
    Gate,
    OpenGate,
    ToolContext,
    ToolResult,
    current_call_id,
)

log = logging.getLogger(__name__)


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip_titles(v) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


def input_schema(tool: AnyTool) -> dict[str, Any]:
    schema: dict[str, Any] = _strip_titles(tool.input_model.model_json_schema())
    return schema


def format_validation_error(tool_name: str, error: ValidationError) -> str:
    lines = [f"Invalid arguments for {tool_name}:"]
    for err in error.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(input)"
        lines.append(f"- {where}: {err['msg']}")
    lines.append("Fix the arguments and call the tool again.")
    return "\n".join(lines)


class ToolRegistry:
    def __init__(self, tools: Iterable[AnyTool], gate: Gate | None = None) -> None:
        self.tools: dict[str, AnyTool] = {t.name: t for t in tools}
        self.gate: Gate = gate or OpenGate()

    def names(self) -> list[str]:
        return list(self.tools)

    def without(self, *names: str) -> ToolRegistry:
        return ToolRegistry([t for n, t in self.tools.items() if n not in names], self.gate)

    def with_tools(self, *tools: AnyTool) -> ToolRegistry:
        return ToolRegistry([*self.tools.values(), *tools], self.gate)

    @cached_property
    def schemas(self) -> list[dict[str, Any]]:
        """Generated once, in a stable order: a stable tool block keeps the cached prefix valid."""
        return [
            {
                "name": tool.name,
                "description": load_prompt(f"tools/{tool.name}.md").strip(),
                "input_schema": input_schema(tool),
            }
            for tool in self.tools.values()
        ]

    def runs_concurrently(self, name: str) -> bool:
        tool = self.tools.get(name)
        return bool(tool and (tool.read_only or tool.concurrent))

    def describe(self, name: str, raw: Any) -> str:
        tool = self.tools.get(name)
        if tool is None or not isinstance(raw, dict):
            return name
        try:
            return tool.describe_call(tool.input_model.model_validate(raw))
        except ValidationError:
            return name

    async def dispatch(
        self, name: str, raw: Any, ctx: ToolContext, call_id: str = "call"
    ) -> ToolResult:
        tool = self.tools.get(name)
        if tool is None:
            known = ", ".join(self.tools) or "none"
            return _error(f"Unknown tool '{name}'. Available tools: {known}.", name)
        if not isinstance(raw, dict):
            return _error(
                f"Arguments for {name} must be a JSON object, got {type(raw).__name__}.", name
            )
        try:
            args = tool.input_model.model_validate(raw)
        except ValidationError as e:
            return _error(format_validation_error(name, e), name)
        try:
            denial = await self.gate.before(tool, args, ctx)
            if denial is not None:
                return _error(denial, f"{name} denied")
            token = current_call_id.set(call_id)
            try:
                result = await tool.run(args, ctx)
            finally:
                current_call_id.reset(token)
            await self.gate.after(tool, args, result, ctx)
        except Exception as e:  # a crashing handler is a result, never a crashed session
            log.exception("tool %s crashed", name)
            return _error(f"{name} failed: {type(e).__name__}: {e}", name)
        return finish_result(result, ctx, name, call_id)


def _error(message: str, summary: str) -> ToolResult:
    return ToolResult(content=message, is_error=True, summary=f"{summary}: error")


def finish_result(result: ToolResult, ctx: ToolContext, name: str, call_id: str) -> ToolResult:
    """Redact secrets (what the model and the user see), then save an oversized output and keep
    a preview plus its path."""
    content = redact(result.content, ctx.secrets)
    result.summary = redact(result.summary, ctx.secrets)
    result.display = redact_value(result.display, ctx.secrets)
    limit = ctx.settings.tool_result_limit_chars
    if len(content) > limit:
        content = save_and_preview(content, ctx, name, call_id)
    result.content = content
    if not result.summary:
        result.summary = name
    return result


def save_and_preview(content: str, ctx: ToolContext, label: str, call_id: str) -> str:
    folder = ctx.paths.tool_results(ctx.session_id)
    make_dirs(folder)
    path = folder / f"{result_file_stem(call_id)}.txt"
    path.write_text(content, encoding="utf-8")
    preview = content[: ctx.settings.tool_preview_chars]
    return (
        f"{preview}\n\n[Output of {label} was {len(content):,} characters; "
        f"the whole output is saved at {path} (open it with read_file, using offset/limit).]"
    )
