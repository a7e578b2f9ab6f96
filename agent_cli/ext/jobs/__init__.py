"""Background shells: jobs the model starts (or a long command moved off the turn), each in its
own process group with its output in a file, never outliving the agent unless the user keeps one.

What plugs in: the run's service (service.py: the board, made when first needed), bash's port
"jobs" (that service), the tools `bash_output` and `bash_kill` (declared here; what they do is
tools.py, imported at their first call), and `/jobs`. Loading this module imports nothing else
of the feature."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field

from agent_cli.core.tool_contract import AnyTool, Tool, ToolContext, ToolInput, ToolResult
from agent_cli.runtime.extensions.contract import (
    CommandPort,
    Extension,
    ExtensionContext,
    SlashCommand,
)

if TYPE_CHECKING:
    from agent_cli.ext.jobs.service import JobsService


class BashOutputInput(ToolInput):
    id: str = Field(min_length=1, description="The job id, e.g. j1.")
    since: int | None = Field(
        default=None,
        ge=0,
        description="Byte offset to read from; default: where the last read stopped.",
    )


class BashOutput(Tool[BashOutputInput]):
    name = "bash_output"
    input_model = BashOutputInput
    read_only = True

    def __init__(self, jobs: JobsService) -> None:
        self.jobs = jobs  # the run's board is made when a job starts, or a tool is called

    def describe_call(self, args: BashOutputInput) -> str:
        return f"bash_output {args.id}"

    async def run(self, args: BashOutputInput, ctx: ToolContext) -> ToolResult:
        from agent_cli.ext.jobs.tools import read_output

        return read_output(self.jobs, args.id, args.since, ctx)


class BashKillInput(ToolInput):
    id: str = Field(min_length=1, description="The job id, e.g. j1.")


class BashKill(Tool[BashKillInput]):
    name = "bash_kill"
    input_model = BashKillInput

    def __init__(self, jobs: JobsService) -> None:
        self.jobs = jobs

    def describe_call(self, args: BashKillInput) -> str:
        return f"bash_kill {args.id}"

    async def run(self, args: BashKillInput, ctx: ToolContext) -> ToolResult:
        from agent_cli.ext.jobs.tools import kill

        return await kill(self.jobs, args.id)


def _service(runtime: Any) -> object:
    from agent_cli.ext.jobs.service import made

    return made(runtime)


def _port(context: ExtensionContext) -> object | None:
    return context.services("jobs")


def _tools(context: ExtensionContext) -> list[AnyTool]:
    from agent_cli.ext.jobs.service import JobsService

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
