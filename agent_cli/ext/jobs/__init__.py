"""Background shells: jobs the model starts (or a long command moved off the turn), each in its
own process group with its output in a file, never outliving the agent unless the user keeps one.

What plugs in: the run's service (service.py: the board, made when first needed), bash's port
"jobs" (that service), the tools `bash_output` and `bash_kill`, and `/jobs`. Loading this
module imports nothing else of the feature."""

from __future__ import annotations

from typing import Any

from agent_cli.core.tool_contract import AnyTool
from agent_cli.runtime.extensions.contract import (
    CommandPort,
    Extension,
    ExtensionContext,
    SlashCommand,
)


def _service(runtime: Any) -> object:
    from agent_cli.ext.jobs.service import made

    return made(runtime)


def _port(context: ExtensionContext) -> object | None:
    return context.services("jobs")


def _tools(context: ExtensionContext) -> list[AnyTool]:
    from agent_cli.ext.jobs.service import JobsService
    from agent_cli.ext.jobs.tools import BashKill, BashOutput

    service = context.services("jobs")
    if not isinstance(service, JobsService):
        return []  # no run-wide board (a bare assembly): bash runs in the foreground
    service.adopt(context.session_id)
    return [BashOutput(service), BashKill(service)]


def _jobs(port: CommandPort, arg: str) -> None:
    from agent_cli.ext.jobs.chat import jobs_command

    jobs_command(port, arg)


EXTENSION = Extension(
    name="jobs",
    about="background shells: bash(run_in_background), bash_output, bash_kill, /jobs",
    tools=_tools,
    service=_service,
    ports={"jobs": _port},
    slash_commands=(
        SlashCommand(
            "/jobs",
            "background jobs: list, one's output, stop one, keep one",
            _jobs,
            "/jobs [ID|stop ID|keep ID]",
        ),
    ),
)
