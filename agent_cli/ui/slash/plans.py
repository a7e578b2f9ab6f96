"""/plan [goal] enters plan mode (read-only tools; the model presents its plan for approval)
and submits the goal if one is given; /plans lists the plans kept so far."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from agent_cli.core.text.counts import counted

if TYPE_CHECKING:
    from agent_cli.ui.slash.host import Host

HELP = {
    "/plan [goal]": "plan mode: read-only, the plan is approved before any edit; goal: sent",
    "/plans": "the plans presented so far (kept in the state folder, never committed)",
}


def plan_command(host: Host, arg: str) -> None:
    runtime = host.runtime
    if runtime.permission_mode == "plan":
        host.say("Already in plan mode.", "dim")
    else:
        runtime.set_permission_mode("plan")
        back = runtime.planning.mode_after_plan()
        host.say(f"mode: plan (read-only; an approved plan goes back to {back})", "dim")
    if arg:
        host.send(arg)


def plans_command(host: Host, arg: str) -> None:
    plans = host.runtime.planning.plans()
    if not plans:
        host.say("No plan kept yet: each plan presented in plan mode is kept here.", "dim")
        return
    host.say(f"Plans kept in {plans[0].parent}:")
    for path in plans:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))
        except OSError:
            continue  # removed meanwhile
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        host.say(f"  {path.name}  {when}  {counted(len(text.splitlines()), 'line')}  {first[:60]}")
