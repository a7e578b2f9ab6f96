"""The tool set offered to the model, and dispatch: validate, gate, run, post-process.

Dispatch never raises: every failure becomes an `is_error` result telling the model what to fix.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Iterable
from contextvars import Token
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ValidationError

from agent_cli.core import snapshot_hold
from agent_cli.core.files.paths import make_dirs, result_file_stem
from agent_cli.core.prompts.templates import load_prompt
from agent_cli.core.text.redaction import redact as redact
from agent_cli.core.text.redaction import redact_value
from agent_cli.core.text.unicode_safe import safe_text, safe_value
from agent_cli.core.tool_contract import (
    AnyTool,
    Gate,
    KnownFailure,
    OpenGate,
    ToolContext,
    ToolResult,
    call_paths,
    current_call_id,
)

log = logging.getLogger(__name__)


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip_titles(v) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


_SCHEMAS: dict[type[BaseModel], dict[str, Any]] = {}


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A tool input model's JSON schema, made once per process (pydantic takes ~5 ms a model,
    which every run paid again; the warm process makes them for all its children)."""
    if model not in _SCHEMAS:
        _SCHEMAS[model] = _strip_titles(model.model_json_schema())
    return _SCHEMAS[model]


def input_schema(tool: AnyTool) -> dict[str, Any]:
    return copy.deepcopy(model_schema(tool.input_model))


def format_validation_error(tool_name: str, error: ValidationError) -> str:
    lines = [f"Invalid arguments for {tool_name}:"]
    for err in error.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(input)"
        lines.append(f"- {where}: {err['msg']}")
    lines.append("Fix the arguments and call the tool again.")
    return "\n".join(lines)


@runtime_checkable
class ToolSource(Protocol):
    """Tools that come and go between requests (an MCP server's), offered after the fixed ones.
    They change only when `offered()` is asked, before a request, so the cached prefix holds."""

    def offered(self) -> list[AnyTool]: ...

    async def aclose(self) -> None: ...


class SourceView:
    """Another registry's source as a subagent sees it: asked afresh at each request (a server
    ready later, a tool its search found), only the names `keep` allows; closing the view
    leaves the source to its owner."""

    def __init__(self, source: ToolSource, keep: Callable[[str], bool] = lambda _: True) -> None:
        self.source, self.keep = source, keep

    def offered(self) -> list[AnyTool]:
        return [t for t in self.source.offered() if self.keep(t.name)]

    async def aclose(self) -> None:
        return None


class ToolRegistry:
    def __init__(
        self,
        tools: Iterable[AnyTool],
        gate: Gate | None = None,
        source: ToolSource | None = None,
        server_tools: Iterable[dict[str, Any]] = (),
    ) -> None:
        self.fixed: dict[str, AnyTool] = {t.name: t for t in tools}
        self.gate: Gate = gate or OpenGate()
        self.source = source
        # declarations of tools the API runs itself (web search): declared, never dispatched
        self.server_tools = [dict(t) for t in server_tools]

    @property
    def tools(self) -> dict[str, AnyTool]:
        extra = self.source.offered() if self.source else []
        return {**self.fixed, **{t.name: t for t in extra if t.name not in self.fixed}}

    def names(self) -> list[str]:
        return list(self.tools)

    def without(self, *names: str) -> ToolRegistry:
        kept = [t for n, t in self.fixed.items() if n not in names]
        return ToolRegistry(kept, self.gate, self.source, self.server_tools)

    def narrowed(self, keep: Callable[[str], bool]) -> ToolRegistry:
        """Only the tools `keep` names, the source's too as they come and go."""
        kept = [t for n, t in self.fixed.items() if keep(n)]
        source = SourceView(self.source, keep) if self.source else None
        return ToolRegistry(kept, self.gate, source, self.server_tools)

    def with_tools(self, *tools: AnyTool) -> ToolRegistry:
        every = [*self.fixed.values(), *tools]
        return ToolRegistry(every, self.gate, self.source, self.server_tools)

    @cached_property
    def fixed_schemas(self) -> list[dict[str, Any]]:
        """Generated once, in a stable order: a stable tool block keeps the cached prefix valid."""
        client = [_schema(tool) for tool in self.fixed.values()]
        return client + [t for t in self.server_tools if t["name"] not in self.fixed]

    @property
    def schemas(self) -> list[dict[str, Any]]:
        if self.source is None:
            return self.fixed_schemas
        extra = [t for t in self.source.offered() if t.name not in self.fixed]
        return [*self.fixed_schemas, *(_schema(t) for t in extra)]

    async def aclose(self) -> None:
        if self.source is not None:
            await self.source.aclose()

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
        from agent_cli.core.text import (
            lenient_json,
            lenient_values,
        )  # a call's input, when it comes

        raw = lenient_values.coerce_tool_input(raw, tool.input_model)
        if not isinstance(raw, dict):
            return _error(
                f"Arguments for {name} must be a JSON object, got {type(raw).__name__}.", name
            )
        try:
            if tool.lenient_input:
                args = tool.input_model.model_validate(lenient_json.clean(raw, tool.input_model))
            else:
                args = tool.input_model.model_validate(raw)
        except ValidationError as e:
            return _error(format_validation_error(name, e), name)
        token = current_call_id.set(call_id)  # the gate's questions name the call too
        paths = _CallPaths(call_paths.set({}))  # one resolution a path: check, reader's run
        try:
            denial = await self.gate.before(tool, args, ctx)
            if not tool.read_only:  # a call that may move files resolves again as it runs
                paths.forget()
            if denial is not None:
                summary = f"{tool.describe_call(args)}: denied"
                if isinstance(denial, KnownFailure):  # the call would fail: nobody denied it
                    summary = denial.summary
                text = safe_text(str(denial))  # a plain str: the subclass stays here
                return ToolResult(text, is_error=True, summary=safe_text(summary))
            if not tool.read_only:  # the turn's checkpoint first: it must not see what this does
                await snapshot_hold.passed()
            result = await tool.run(args, ctx)
            paths.forget()  # the after-hooks look again
            await self.gate.after(tool, args, result, ctx)
        except Exception as e:  # a crashing handler is a result, never a crashed session
            log.exception("tool %s crashed", name)
            return _error(f"{name} failed: {type(e).__name__}: {e}", name)
        finally:
            current_call_id.reset(token)
            paths.forget()
        return finish_result(result, ctx, name, call_id)


@dataclass
class _CallPaths:
    """A call's resolved paths while they are held; `forget` ends that (once)."""

    token: Token[dict[tuple[Path, str], Path] | None] | None

    def forget(self) -> _CallPaths:
        if self.token is not None:
            call_paths.reset(self.token)
            self.token = None
        return self


def _schema(tool: AnyTool) -> dict[str, Any]:
    prompt = load_prompt(f"tools/{tool.name}.md").strip() if tool.schema() is None else ""
    return tool.schema() or {
        "name": tool.name,
        "description": "\n\n".join(p for p in (prompt, tool.description_extra().strip()) if p),
        "input_schema": input_schema(tool),
    }


def _error(message: str, summary: str) -> ToolResult:
    return ToolResult(safe_text(message), is_error=True, summary=safe_text(f"{summary}: error"))


def finish_result(result: ToolResult, ctx: ToolContext, name: str, call_id: str) -> ToolResult:
    """Redact secrets (what the model and the user see), then save an oversized output and keep
    a preview plus its path."""
    content = safe_text(redact(result.content, ctx.secrets))
    result.summary = safe_text(redact(result.summary, ctx.secrets))
    result.display = safe_value(redact_value(result.display, ctx.secrets))
    limit = ctx.settings.tool_result_limit_chars
    if len(content) > limit:
        try:
            content = save_and_preview(content, ctx, name, call_id)
        except OSError as e:  # a full disk: the model still gets the start of it
            log.warning("could not save the output of %s: %s", name, e)
            preview = content[: ctx.settings.tool_preview_chars]
            content = (
                f"{preview}\n\n[Output of {name} was {len(content):,} characters; it could "
                f"not be saved ({e.strerror or e}), so only this start is shown.]"
            )
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
