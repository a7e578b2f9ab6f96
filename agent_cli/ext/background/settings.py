"""settings.json's `background` section: how long a background session waits, idle, for a
message before it ends, and whether its model is given the tools to talk to other sessions."""

from __future__ import annotations

from pydantic import Field

from agent_cli.runtime.extensions.contract import ExtensionSettings


class BackgroundSettings(ExtensionSettings):
    """{"background": {"idle_minutes": 60, "tools": true}}"""

    idle_minutes: float = Field(
        default=60,
        ge=0,
        le=7 * 24 * 60,
        description="An answered session waits this long (idle) for its next message, then "
        "ends; not while a session it started still works. 0: it ends once its prompt is done.",
    )
    tools: bool = Field(
        default=True,
        description="Offer a background session's model list_sessions, send_message and "
        "start_session.",
    )
