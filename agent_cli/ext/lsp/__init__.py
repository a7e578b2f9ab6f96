"""Language servers: edits that know what they broke (diagnostics after `edit_file` and
`write_file`, a formatter's pass on request), the `diagnostics` tool, `/lsp` and `agent lsp`.

The extension: asked when the settings configure servers or a built-in one is on PATH (the
registry's line); its modules are imported only when the spine asks for what it contributes."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import Field

from agent_cli.core.diagnosing import Diagnoser, EditReport
from agent_cli.core.outside.paths import program
from agent_cli.core.tool_contract import AnyTool, Tool, ToolContext, ToolInput, ToolResult
from agent_cli.ext.lsp.settings import LspSettings, lsp_settings, narrow
from agent_cli.runtime.extensions.builtins import LSP_PROGRAMS
from agent_cli.runtime.extensions.contract import (
    CommandPort,
    Extension,
    ExtensionContext,
    SlashCommand,
)


def _service(runtime: Any) -> object:
    from agent_cli.ext.lsp.service import LspService

    return LspService(runtime, could_serve)


def could_serve(settings: LspSettings, workspace: Path) -> bool:
    """Some server could check an edit (a configured one, or a built-in one on PATH): what
    `LspManager.any_server` says, known without importing the servers' code or specs (the
    registry's LSP_PROGRAMS are the built-in ones' commands; builtins.py's ENV_BUILTIN)."""
    if not settings.enabled:
        return False
    if settings.servers:
        return True
    wanted = settings.builtin and os.environ.get("AGENT_LSP_BUILTIN") != "0"
    return wanted and any(program(name, workspace) for name in LSP_PROGRAMS)


class FirstChecks:
    """The port "after_edit" where a server could check an edit: the run's service (and its
    manager) made at the first check, not before the first request."""

    def __init__(self, context: ExtensionContext) -> None:
        self.context = context

    def _checks(self) -> Diagnoser | None:
        from agent_cli.ext.lsp.service import after_edit

        return after_edit(self.context)

    async def after_edit(self, path: Path) -> EditReport:
        checks = self._checks()
        return EditReport() if checks is None else await checks.after_edit(path)

    async def report(self, paths: list[Path]) -> str:
        checks = self._checks()
        return "" if checks is None else await checks.report(paths)


def _after_edit(context: ExtensionContext) -> object:
    if could_serve(lsp_settings(context.settings), context.workspace):
        return FirstChecks(context)
    from agent_cli.ext.lsp.service import after_edit  # plugins may bring servers

    return after_edit(context)


class DiagnosticsInput(ToolInput):
    paths: list[str] = Field(
        default_factory=list,
        description="Files to check; none: every file edited in this session.",
    )


class Diagnostics(Tool[DiagnosticsInput]):
    """What the language servers report now (tool.py, imported at its first call)."""

    name = "diagnostics"
    input_model = DiagnosticsInput
    read_only = True

    def describe_call(self, args: DiagnosticsInput) -> str:
        return f"diagnostics {' '.join(args.paths)}".rstrip()

    async def run(self, args: DiagnosticsInput, ctx: ToolContext) -> ToolResult:
        from agent_cli.ext.lsp.tool import diagnostics

        return await diagnostics(args.paths, ctx)


def _tools(context: ExtensionContext) -> Sequence[AnyTool]:
    """`diagnostics`, offered when a server could answer it."""
    return [Diagnostics()] if _after_edit(context) is not None else []


def _lsp(port: CommandPort, arg: str) -> None:
    from agent_cli.ext.lsp.chat import lsp_command

    lsp_command(port, arg)


def _cli() -> Any:
    from agent_cli.ext.lsp.cli import lsp_app

    return lsp_app


EXTENSION = Extension(
    name="lsp",
    about="language servers: diagnostics after edits, the diagnostics tool",
    settings=LspSettings,
    narrow=narrow,
    service=_service,
    tools=_tools,
    ports={"after_edit": _after_edit},
    slash_commands=(
        SlashCommand(
            "/lsp", "language servers: which files they check, their state, their last error", _lsp
        ),
    ),
    cli=_cli,
)
