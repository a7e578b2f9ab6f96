"""`/permissions` in `agent chat`: the permission mode and this session's auto-mode verdicts."""

from __future__ import annotations

from agent_cli.ext.auto.service import AutoService
from agent_cli.runtime.extensions.contract import CommandPort


def permissions_command(port: CommandPort, arg: str) -> None:
    context = port.context
    mode = context.settings.permissions.mode
    service = context.services("auto")
    state = service.of(context.session_id) if isinstance(service, AutoService) else None
    verdicts = state.verdicts if state is not None else []
    lines = [f"permission mode: {mode}"]
    if state is not None and state.stopped:
        lines.append(f"! {state.stopped}; questions go to you")
    if not verdicts:
        lines.append("no auto-mode verdicts in this session")
    else:
        denied = sum(1 for v in verdicts if not v.allowed)
        lines.append(f"auto-mode verdicts in this session: {len(verdicts)} ({denied} denied)")
        lines += [f"  {v.line()}" for v in verdicts]
    port.say("\n".join(lines))
