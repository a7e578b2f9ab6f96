"""bash: run a command in the workspace; the whole process group dies on timeout or cancel."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from pydantic import Field, field_validator

from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult
from agent_cli.model.credentials import CREDENTIAL_VARS
from agent_cli.tools.shell.confined import (
    NO_WRAPPER,
    Confined,
    ShellRefused,
    ShellWrapper,
    required,
)

if TYPE_CHECKING:
    from agent_cli.core.outside.gate import StartGate
    from agent_cli.tools.shell.bash_jobs import Background

# output kept in memory; the registry saves anything over the per-result limit to a file
MAX_OUTPUT_BYTES = 4_000_000
# after the shell exits, how long a process that left its group may keep the pipe open
DRAIN_S = 2.0
# `bash -c COMMAND` passes the command as one argument: Linux refuses one longer than this
MAX_COMMAND_BYTES = 131_071
JOBS = "jobs"  # the port of background jobs (bash_jobs.py: what bash asks of it)


class BashInput(ToolInput):
    command: str = Field(min_length=1, description="The shell command to run.")
    timeout_s: float | None = Field(
        default=None, gt=0, le=600, description="Seconds before it is killed (default 120)."
    )
    run_in_background: bool = Field(
        default=False, description="Start it as a background job and return at once with its id."
    )
    unsandboxed: bool = Field(
        default=False,
        description="Run outside the sandbox (the user is asked): only after a sandbox denial.",
    )

    @field_validator("command")
    @classmethod
    def _fits_one_argument(cls, value: str) -> str:
        # checked before anything parses the command, so a huge one costs nothing
        size = (
            len(value) if len(value) > MAX_COMMAND_BYTES else len(value.encode("utf-8", "replace"))
        )
        if size > MAX_COMMAND_BYTES:
            raise ValueError(
                f"the command is {size:,} bytes; a command may hold at most "
                f"{MAX_COMMAND_BYTES:,} (the system's limit for one argument). Write a script "
                "with write_file and run that"
            )
        return value


def clean_env() -> dict[str, str]:
    """The agent's own credentials never reach the commands the model runs."""
    return {k: v for k, v in os.environ.items() if k not in CREDENTIAL_VARS}


class _Output:
    """Collects a pipe up to a cap, counting what it drops."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.dropped = 0

    async def collect(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65_536):
            room = MAX_OUTPUT_BYTES - len(self.data)
            self.data += chunk[:room]
            self.dropped += max(0, len(chunk) - room)

    def text(self) -> str:
        text = self.data.decode("utf-8", errors="replace").rstrip()
        if self.dropped:
            text += f"\n[... {self.dropped:,} more bytes of output dropped]"
        return text


def no_wrapper() -> object | None:
    return None


class Bash(Tool[BashInput]):
    name = "bash"
    input_model = BashInput

    def __init__(
        self,
        jobs: Callable[[], object | None] = no_wrapper,
        shell_wrapper: Callable[[], object | None] = no_wrapper,
    ) -> None:
        self.jobs_port = jobs  # the session's ports, made when a command first asks for them
        self.shell_wrapper = shell_wrapper

    @property
    def jobs(self) -> Background | None:
        """Where background jobs go; None: nowhere (no extension provides the port)."""
        from agent_cli.tools.shell.bash_jobs import Background

        found = self.jobs_port()
        return found if isinstance(found, Background) else None

    def wrapper(self) -> ShellWrapper | None:
        """What confines the commands; None: they run as they are (or not at all: required)."""
        found = self.shell_wrapper()
        return found if isinstance(found, ShellWrapper) else None

    def describe_call(self, args: BashInput) -> str:
        return f"bash {args.command}"

    def unconfined(self, args: BashInput, ctx: ToolContext) -> bool:
        """Would this call run outside the sandbox? (Only then are its writes asked.)"""
        wrapper = self.wrapper()
        if wrapper is None:
            return not required(ctx.settings)
        return wrapper.unconfined(ctx, args.unsandboxed)

    async def run(self, args: BashInput, ctx: ToolContext) -> ToolResult:
        # imported by the first command, not before the first request
        from agent_cli.core.outside.gate import StartGate
        from agent_cli.tools.shell import git_guard
        from agent_cli.tools.shell.bash_jobs import start_background
        from agent_cli.tools.shell.rules import is_read_only

        env = clean_env()
        if "git" in args.command and is_read_only(args.command, ctx.workspace):
            env = await git_guard.neutral_env(ctx.workspace, env)  # it may have run unasked
        try:
            argv, confined = await self._confined(args, ctx)
        except ShellRefused as e:
            return ToolResult(f"Not run: {e}", is_error=True, summary=f"bash {args.command}")
        if args.run_in_background:
            return await start_background(self.jobs, args.command, ctx, env, argv, confined)
        gate = StartGate()  # the command waits until the watcher knows its group
        proc, result = None, None
        try:
            proc = await _spawn(argv, ctx, env, gate, confined.pass_fds if confined else ())
            if confined is not None:
                confined.started()
            result = await self._foreground(proc, gate, args, ctx)
        finally:
            if confined is not None:
                # one moved to the background keeps its proxy and is settled again when it
                # ends; one stopped (no result) is settled once it has ended, as nobody tells
                later = proc is not None and (proc.returncode is None or result is None)
                confined.when_ended(proc, settle=later)
        return confined.tell(result) if confined is not None else result

    async def _confined(
        self, args: BashInput, ctx: ToolContext
    ) -> tuple[list[str], Confined | None]:
        """The argv to start and what its wrapper holds for it (None: it runs as it is)."""
        argv, wrapper = ["bash", "-c", args.command], self.wrapper()
        if wrapper is not None:
            return await wrapper.confine(ctx, args.command, argv, args.unsandboxed)
        if required(ctx.settings):
            raise ShellRefused(NO_WRAPPER)
        return argv, None

    async def _foreground(
        self,
        proc: asyncio.subprocess.Process,
        gate: StartGate,
        args: BashInput,
        ctx: ToolContext,
    ) -> ToolResult:
        timeout = args.timeout_s or ctx.settings.bash_timeout_s
        assert proc.stdout is not None
        output = _Output()
        reader = asyncio.ensure_future(output.collect(proc.stdout))
        started = time.monotonic()
        try:
            ending = await self._wait(proc, timeout, gate)
            if ending == "move" and self.jobs is not None:
                from agent_cli.tools.shell.bash_jobs import move_to_background

                waited = time.monotonic() - started
                args_ = (self.jobs, proc, reader, output.data, args.command, ctx, waited)
                moved = await move_to_background(*args_)
                if moved is not None:
                    return moved
                left = max(0.0, timeout - waited)  # no job may start: it stays in the foreground
                ending = "exited" if await _within(proc, left) else "timeout"
        except BaseException:
            gate.close()
            kill_group(proc)
            reader.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.shield(proc.wait())
            raise
        # background children die with the command, so nothing holds the pipe open for long
        kill_group(proc)
        await _exited(proc)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(reader, DRAIN_S)
        timed_out = timeout if ending == "timeout" else None
        return _result(args.command, output.text(), proc.returncode, timed_out)

    async def _wait(
        self, proc: asyncio.subprocess.Process, timeout: float, gate: StartGate
    ) -> Literal["exited", "timeout", "move"]:
        """Until the shell exits, the timeout, or the move to the background (after the
        threshold, or when the user presses the key for it)."""
        if self.jobs is None:
            gate.open()
            return "exited" if await _within(proc, timeout) else "timeout"
        move_after = self.jobs.move_after_s
        with self.jobs.foreground(proc.pid) as asked:
            gate.open()  # the watcher knows the group now
            exit_task = asyncio.ensure_future(_exited(proc))
            ask_task = asyncio.ensure_future(asked.wait())
            limit = timeout if move_after is None else min(timeout, move_after)
            try:
                await asyncio.wait(
                    {exit_task, ask_task}, timeout=limit, return_when="FIRST_COMPLETED"
                )
            finally:
                exit_task.cancel()
                ask_task.cancel()
            if proc.returncode is not None:
                return "exited"
            if asked.is_set() or (move_after is not None and move_after < timeout):
                return "move"
            return "timeout"


# the process-group helpers and the spawner are imported with the first command, not to offer bash
def kill_group(proc: asyncio.subprocess.Process) -> None:
    from agent_cli.core.outside.groups import kill_group as kill

    kill(proc)


async def _exited(proc: asyncio.subprocess.Process) -> None:
    from agent_cli.core.outside.groups import exited

    await exited(proc)


async def _within(proc: asyncio.subprocess.Process, seconds: float) -> bool:
    try:
        await asyncio.wait_for(_exited(proc), seconds)
    except TimeoutError:
        return False
    return True


async def _spawn(
    argv: list[str],
    ctx: ToolContext,
    env: dict[str, str],
    gate: StartGate,
    fds: tuple[int, ...] = (),
) -> asyncio.subprocess.Process:
    """The shell (`argv`, maybe confined), in its own process group, behind `gate`, inheriting
    `fds` too. A cancel while the pipes are still being set up waits for the process and kills
    its group."""
    from agent_cli.core.outside import spawn

    spawning = asyncio.ensure_future(
        spawn.start(
            gate.wrap(argv),
            pass_fds=(*gate.pass_fds, *fds),
            cwd=ctx.workspace,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
    )
    try:
        proc = await asyncio.shield(spawning)
    except asyncio.CancelledError:
        gate.close()
        with contextlib.suppress(Exception):
            proc = await spawning
            kill_group(proc)
            await proc.wait()
        raise
    except BaseException:
        gate.close()
        raise
    gate.spawned()
    return proc


def _result(command: str, text: str, code: int | None, timed_out: float | None) -> ToolResult:
    if timed_out is not None:
        body = f"{text}\n\n" if text else ""
        return ToolResult(
            f"{body}Command timed out after {timed_out:g} s and was killed: {command}",
            is_error=True,
            summary=f"bash {command} → timed out",
        )
    killed = code is not None and code < 0
    line = f"killed by signal {-(code or 0)}" if killed else f"exit code: {code}"
    body = f"{text}\n\n{line}" if text else line
    short = line if killed else f"exit {code}"
    return ToolResult(body, is_error=code != 0, summary=f"bash {command} → {short}")
