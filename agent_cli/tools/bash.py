"""bash: run a command in the workspace; the whole process group dies on timeout or cancel."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

from pydantic import Field

from agent_cli.model.credentials import CREDENTIAL_VARS
from agent_cli.tools.base import Tool, ToolContext, ToolInput, ToolResult


class BashInput(ToolInput):
    command: str = Field(min_length=1, description="The shell command to run.")
    timeout_s: float | None = Field(
        default=None, gt=0, le=600, description="Seconds before it is killed (default 120)."
    )


def clean_env() -> dict[str, str]:
    """The agent's own credentials never reach the commands the model runs."""
    return {k: v for k, v in os.environ.items() if k not in CREDENTIAL_VARS}


def kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


class Bash(Tool[BashInput]):
    name = "bash"
    input_model = BashInput

    def describe_call(self, args: BashInput) -> str:
        return f"bash {args.command}"

    async def run(self, args: BashInput, ctx: ToolContext) -> ToolResult:
        timeout = args.timeout_s or ctx.settings.bash_timeout_s
        proc = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            args.command,
            cwd=ctx.workspace,
            env=clean_env(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            out, _ = await asyncio.wait_for(proc.communicate(), timeout)
        except TimeoutError:
            kill_group(proc)
            await proc.wait()
            return ToolResult(
                f"Command timed out after {timeout:g} s and was killed: {args.command}",
                is_error=True,
                summary=f"bash {args.command} → timed out",
            )
        except BaseException:
            kill_group(proc)
            with contextlib.suppress(BaseException):
                await asyncio.shield(proc.wait())
            raise
        kill_group(proc)  # background children left behind by the command die with it
        text = out.decode("utf-8", errors="replace").rstrip()
        code = proc.returncode
        body = f"{text}\n\nexit code: {code}" if text else f"exit code: {code}"
        return ToolResult(body, is_error=code != 0, summary=f"bash {args.command} → exit {code}")
