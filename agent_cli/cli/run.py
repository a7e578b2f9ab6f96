"""`agent run`: one prompt, non-interactive, scriptable."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded
from agent_cli.core.errors import AgentError, UsageError

if TYPE_CHECKING:  # the command's own imports are deferred: `agent --help` must stay light
    from collections.abc import AsyncIterator

    from agent_cli.cli.run_output import RunOutcome, RunReporter
    from agent_cli.cli.structured import StructuredOutput
    from agent_cli.core.messages import Block
    from agent_cli.core.signals import Ending
    from agent_cli.runtime.runtime import Runtime


def read_prompt(prompt: str | None) -> str:
    if prompt == "-" or (prompt is None and not sys.stdin.isatty()):
        text = sys.stdin.read()
    elif prompt is None:
        raise UsageError("No prompt: give -p TEXT, or -p - to read it from stdin.")
    else:
        text = prompt
    if not text.strip():
        raise UsageError("The prompt is empty.")
    return text


@guarded
def run(
    ctx: typer.Context,
    prompt: str | None = typer.Option(None, "--prompt", "-p", help="The prompt; - reads stdin."),
    output_format: Literal["text", "json", "stream-json"] = typer.Option(
        "text", "--output-format", help="text, json or stream-json."
    ),
    input_format: Literal["text", "stream-json"] = typer.Option(
        "text", "--input-format", help="stream-json: user messages as JSON lines on stdin."
    ),
    max_turns: int | None = typer.Option(
        None, "--max-turns", min=1, help="Model requests allowed (default 100, see settings)."
    ),
    resume: str | None = opt.RESUME,
    continue_last: bool = opt.CONTINUE,
    fork_session: bool = opt.FORK_SESSION,
    model: str | None = opt.MODEL,
    permission_mode: opt.PermissionModeOpt | None = opt.PERMISSION_MODE,
    sandbox: opt.SandboxModeOpt | None = opt.SANDBOX,
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress or exit summary."),
    wait_jobs: bool = typer.Option(
        False, "--wait-jobs", help="Before exiting, wait for the background jobs to end."
    ),
    json_schema: str | None = typer.Option(
        None, "--json-schema", help="The answer as JSON valid against this schema (file or JSON)."
    ),
    worktree: str | None = opt.WORKTREE,
    base: str | None = opt.BASE,
    background: bool = opt.BACKGROUND,
    name: str | None = opt.NAME,
    goal_check: str | None = typer.Option(
        None, "--goal-check", help="Keep working until this command exits 0 (run after each turn)."
    ),
    goal: str | None = typer.Option(
        None, "--goal", help="Keep working until a reviewer model judges this met."
    ),
    max_cost: float | None = typer.Option(
        None,
        "--max-cost",
        callback=opt.more_than_zero,
        help="US dollars, more than 0: stop before the request that would pass it.",
    ),
    max_minutes: float | None = typer.Option(
        None,
        "--max-minutes",
        callback=opt.more_than_zero,
        help="Minutes a goal may take, more than 0 (default: settings).",
    ),
) -> None:
    import gc

    gc.disable()  # importing makes classes, not garbage: collecting meanwhile is wasted work
    from agent_cli.cli.run_output import Reporting, RunOutcome, RunReporter
    from agent_cli.core.options import Options
    from agent_cli.runtime.build import build_runtime, resolve_workspace
    from agent_cli.runtime.runtime import preload_sdk

    preload_sdk()  # the agent's modules are in: the SDK imports while the session opens (I/O)
    reporter = RunReporter(output_format, quiet)
    with reporter.failure_reported():  # the json formats get a result object even now
        _check_flags(resume, continue_last, fork_session)
        goal_spec = _goal_spec(goal_check, goal, max_minutes)
        text = _read_input(input_format, output_format, prompt, json_schema)
        structured = None
        if json_schema is not None:
            from agent_cli.cli.structured import StructuredOutput, load_schema

            structured = StructuredOutput(load_schema(json_schema))
        options = Options(
            workspace=resolve_workspace(workspace),
            state_dir=state_dir,
            model=model,
            permission_mode=permission_mode,
            sandbox=sandbox,
            resume=resume,
            continue_last=continue_last,
            fork_session=fork_session,
            max_turns=None if goal_spec else max_turns,  # with a goal it counts the goal's turns
            max_cost_usd=max_cost,
            quiet=quiet,
            one_shot=True,
            wait_jobs=wait_jobs,
            goal=goal_spec[0] if goal_spec else None,  # the goals extension reads these four
            goal_kind="words" if goal_spec and goal_spec[1] == "words" else "command",
            goal_max_turns=max_turns,
            goal_max_minutes=max_minutes,
        )
        if background or name is not None:  # detached: the extension's (cli/commands/background.py)
            from agent_cli.cli.commands.background import detach

            return detach(ctx.params, options, text, name)
        if worktree is not None or base is not None:
            from agent_cli.cli.worktree_session import in_worktree

            # left (removed or kept) when the command's context closes, however the run ends
            options = ctx.with_resource(in_worktree(options, worktree, base))
        tools = [structured] if structured is not None else []  # the final tool: the user's schema
        runtime = build_runtime(options, quiet=quiet, extra_tools=tools)
        goals = runtime.extension("goals")  # made now: it outlives the run's end (aclose)
        if goal_spec is not None and goals is None:
            raise UsageError("goals are not available here (the goals extension is not loaded).")
        _say_how_it_starts(runtime, quiet)
        outcome = RunOutcome(
            session_id=runtime.session.id,
            structured=structured is not None,
            goals=goals if isinstance(goals, Reporting) else None,
            cost=lambda: runtime.extension("cost"),
        )
    _execute(runtime, reporter, outcome, input_format, text, structured)
    _finish(runtime, reporter, outcome, quiet)


def _goal_spec(
    check: str | None, words: str | None, minutes: float | None
) -> tuple[str, str] | None:
    """(the check, its kind) or None; a contradiction or an empty goal is a usage error."""
    if check is not None and words is not None:
        raise UsageError("--goal-check and --goal cannot be used together.")
    if minutes is not None and check is None and words is None:
        raise UsageError("--max-minutes limits a goal: give --goal-check or --goal.")
    if minutes is not None and minutes <= 0:
        raise UsageError("--max-minutes must be more than 0.")
    given = check if check is not None else words
    if given is None:
        return None
    if not given.strip():
        flag = "--goal-check" if check is not None else "--goal"
        raise UsageError(f"{flag}: the goal is empty.")
    return given, "command" if check is not None else "words"


def _check_flags(resume: str | None, continue_last: bool, fork_session: bool) -> None:
    if resume and continue_last:
        raise UsageError("--resume and --continue cannot be used together.")
    if fork_session and not (resume or continue_last):
        raise UsageError("--fork-session needs --continue or --resume.")


def _read_input(
    input_format: str, output_format: str, prompt: str | None, json_schema: str | None
) -> str:
    """The prompt's text; with stream-json input the prompts come later, line by line."""
    if input_format == "stream-json":
        from agent_cli.cli.stream_input import check_flags

        check_flags(output_format, prompt, json_schema)
        return ""
    return read_prompt(prompt)


def _say_how_it_starts(runtime: Runtime, quiet: bool) -> None:
    """What the user should know before the first request: trust, a fork, no sandbox, old jobs."""
    from agent_cli.cli.workspace_trust import warn_unconfined, warn_untrusted
    from agent_cli.runtime.work import background_jobs

    warn_untrusted(runtime.options.workspace)
    if runtime.restored is not None and runtime.restored.forked:
        sys.stderr.write(f"agent: {runtime.restored.forked}\n")
    warn_unconfined(runtime.extension)
    jobs = background_jobs(runtime.extension)
    if jobs is not None and not quiet and (past := jobs.past_listing()):
        sys.stderr.write(past + "\n")


def _execute(
    runtime: Runtime,
    reporter: RunReporter,
    outcome: RunOutcome,
    input_format: str,
    text: str,
    structured: StructuredOutput | None,
) -> None:
    """The turns, however they end: each way of ending becomes the outcome's error and code."""
    import asyncio  # deferred with the rest: `agent --help` must not pay for it

    from agent_cli.core.signals import Ending

    ending = Ending()
    try:
        if input_format == "stream-json":
            from agent_cli.cli.stream_input import user_messages

            messages = user_messages()
            asyncio.run(_drive(runtime, reporter, outcome, messages, ending, each_result=True))
        else:
            asyncio.run(_drive(runtime, reporter, outcome, _one(text), ending, structured))
    except KeyboardInterrupt:
        outcome.error, outcome.exit_code = "interrupted by user", 130
    except asyncio.CancelledError:  # SIGTERM / SIGHUP: ended as Ctrl-C ends it
        outcome.error, outcome.exit_code = ending.message, ending.exit_code
    except AgentError as e:  # e.g. the disk filled up under the transcript
        outcome.error, outcome.exit_code = str(e), e.exit_code
    except Exception as e:  # a bug still ends with the result object and one line
        from agent_cli.cli.failures import internal_error

        outcome.error, outcome.exit_code = internal_error(e), 1


def _finish(runtime: Runtime, reporter: RunReporter, outcome: RunOutcome, quiet: bool) -> None:
    from agent_cli.model.call_log import exit_summary

    session = runtime.session
    outcome.take_goal()
    if not outcome.reported or outcome.error:
        reporter.finish(outcome.totalled(session))
    if not quiet:
        sys.stderr.write(exit_summary(runtime.call_log, runtime.settings) + "\n")
        sys.stderr.write(f"session: {session.id} (resume with: agent run --resume {session.id})\n")
    if outcome.exit_code or outcome.earlier_exit:
        raise typer.Exit(outcome.exit_code or outcome.earlier_exit)


YOUNG_COLLECTION = 10_000  # allocations between young collections (Python's default: 700)


def _imported() -> None:
    """The SDK and the agent are imported: their objects are frozen out of the collector's
    sight (they live as long as the process) and collection resumes, less often: a round
    makes thousands of short-lived containers that reference counting frees, and the default
    (a young collection every 700) collected about twice a round for nothing."""
    import gc

    if not gc.isenabled():
        gc.freeze()
        gc.set_threshold(YOUNG_COLLECTION, 10, 10)
        gc.enable()


async def _one(text: str) -> AsyncIterator[tuple[str, list[Block] | None]]:
    yield text, None


async def _wait_jobs(runtime: Runtime) -> None:
    """`--wait-jobs`: until every background job has ended by itself."""
    from agent_cli.runtime.work import background_jobs

    jobs = background_jobs(runtime.extension)
    if jobs is not None:
        await jobs.wait_all()


async def _drive(
    runtime: Runtime,
    reporter: RunReporter,
    outcome: RunOutcome,
    prompts: AsyncIterator[tuple[str, list[Block] | None]],
    ending: Ending,
    structured: StructuredOutput | None = None,
    each_result: bool = False,
) -> None:
    """The prompts answered in turn in the runtime's one session: one (`-p`), or each line of
    `--input-format stream-json`, whose turns each end with their result line."""
    from agent_cli.core.signals import end_like_ctrl_c

    end_like_ctrl_c(ending)  # SIGTERM / SIGHUP now end the turn as Ctrl-C does
    runtime.listeners.append(lambda event: reporter.event(event, outcome))  # between turns
    finished = False
    try:
        tools = await runtime.tool_names()
        _imported()
        reporter.init(runtime.session.id, runtime.session.model, tools)
        async for text, content in prompts:
            outcome.reported = False
            async for event in runtime.turn(text, content):
                reporter.event(event, outcome)
            if structured is not None:
                outcome.take_structured(structured.valid, structured.value)
            outcome.take_goal()
            outcome.context = (await runtime.tuning.context_breakdown()).model_dump(mode="json")
            if each_result:  # its own result line; the next turn's outcome starts afresh
                reporter.finish(outcome.totalled(runtime.session))
                outcome.next_turn()
        if runtime.options.wait_jobs:
            await _wait_jobs(runtime)
        finished = True
    finally:  # episode work finishes (bounded) before the client closes, unless interrupted
        await runtime.aclose(wait=finished)
