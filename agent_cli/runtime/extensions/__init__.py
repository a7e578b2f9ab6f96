"""The extension contract and the extensions of a run (docs/extensions.md). An extension's
package imports what it needs from here."""

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
