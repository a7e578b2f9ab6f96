"""The extension contract and the extensions of a run (docs/extensions.md). An extension's
package imports what it needs from here. Each name is imported when first asked for: the
registry's own modules (this package's) are read by `agent --help`, which needs none of them."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_cli.core.tool_contract import ToolContext, ToolInput, ToolResult
    from agent_cli.runtime.extensions.contract import (
        CommandPort,
        Extension,
        ExtensionContext,
        ExtensionSettings,
        ExtensionTool,
        PanelPart,
        SlashCommand,
    )

_WHERE = {
    **dict.fromkeys(("ToolContext", "ToolInput", "ToolResult"), "agent_cli.core.tool_contract"),
    **dict.fromkeys(
        ("CommandPort", "Extension", "ExtensionContext", "ExtensionSettings", "ExtensionTool",
         "PanelPart", "SlashCommand"),
        "agent_cli.runtime.extensions.contract",
    ),
}  # fmt: skip

__all__ = [
    "CommandPort",
    "Extension",
    "ExtensionContext",
    "ExtensionSettings",
    "ExtensionTool",
    "PanelPart",
    "SlashCommand",
    "ToolContext",
    "ToolInput",
    "ToolResult",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
