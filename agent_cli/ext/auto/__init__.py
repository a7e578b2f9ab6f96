"""Auto mode (`permissions.mode: auto`): what `default` would ask the user, a reviewer model
answers instead, after fixed rules it can never override (ext/auto/rules.py).

The extension `auto`: the port `"permission_reviewer"` (the session's Reviewer, which the
permission check asks in auto mode), the run's service (each session's verdicts and the limits
that stop auto mode), a stage that ends `agent run` once auto mode stopped, and `/permissions`.
Its settings section is still the agent's own (`AutoSettings`, core/settings/features.py). The
rules, the reviewer's request and its service are imported when auto mode first answers a call."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any

from agent_cli.policy.approval import REVIEWER
from agent_cli.runtime.extensions.contract import (
    CommandPort,
    Extension,
    ExtensionContext,
    SlashCommand,
)

if TYPE_CHECKING:
    from agent_cli.context.ports import Stage


def _service(runtime: Any) -> object:
    from agent_cli.ext.auto.service import AutoService

    return AutoService(runtime)


def _reviewer(context: ExtensionContext) -> object | None:
    from agent_cli.ext.auto.service import AutoReviewer, AutoService

    service = context.services("auto")
    return AutoReviewer(service, context) if isinstance(service, AutoService) else None


def _stages(context: ExtensionContext) -> Sequence[Stage]:
    if context.settings.permissions.mode != "auto":  # only `agent run` stops; its mode stays
        return []
    from agent_cli.ext.auto.service import AutoService, StopStage

    service = context.services("auto")
    return [StopStage(service, context.session_id)] if isinstance(service, AutoService) else []


def _permissions(port: CommandPort, arg: str) -> None:
    from agent_cli.ext.auto.chat import permissions_command

    permissions_command(port, arg)


def _auto_rules(port: CommandPort, arg: str) -> Awaitable[None] | None:
    from agent_cli.ext.auto.chat import auto_rules_command

    return auto_rules_command(port, arg)


EXTENSION = Extension(
    name="auto",
    about="auto mode: a reviewer model answers what default mode would ask",
    service=_service,
    ports={REVIEWER: _reviewer},
    stages=_stages,
    slash_commands=(
        SlashCommand("/permissions", "the permission mode and auto mode's verdicts", _permissions),
        SlashCommand(
            "/auto-rules",
            "draft auto mode's project rules from the repository; show or set them",
            _auto_rules,
            usage="/auto-rules [show | set RULES]",
        ),
    ),
)
