"""Language servers: edits that know what they broke (diagnostics after `edit_file` and
`write_file`, a formatter's pass on request), the `diagnostics` tool, `/lsp` and `agent lsp`.

The extension: asked when the settings configure servers or a built-in one is on PATH (the
registry's line); its modules are imported only when the spine asks for what it contributes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_cli.core.tool_contract import AnyTool
from agent_cli.ext.lsp.settings import LspSettings, narrow
from agent_cli.runtime.extensions.contract import (
    CommandPort,
    Extension,
    ExtensionContext,
    SlashCommand,
)


def _service(runtime: Any) -> object:
    from agent_cli.ext.lsp.service import LspService

    return LspService(runtime)


def _after_edit(context: ExtensionContext) -> object:
    from agent_cli.ext.lsp.service import after_edit

    return after_edit(context)


def _tools(context: ExtensionContext) -> Sequence[AnyTool]:
    """`diagnostics`, offered when a server could answer it."""
    from agent_cli.ext.lsp.service import after_edit
    from agent_cli.ext.lsp.tool import Diagnostics

    return [Diagnostics()] if after_edit(context) is not None else []


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
