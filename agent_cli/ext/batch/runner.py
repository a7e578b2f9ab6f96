"""One task, start to end: its tree, `agent run` in it, its check, its diff. The same function
runs in a thread of this machine or as a Ray task on a worker, so it takes and returns plain
models and writes nothing but the task's own state folder."""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agent_cli.core.errors import AgentError
from agent_cli.core.outside import spawn
from agent_cli.core.outside.env import clean_env, default_env
from agent_cli.core.settings.sandbox import SandboxSettings
from agent_cli.core.text.redaction import redact, secrets_from_env
from agent_cli.ext.batch.results import TaskResult, Tokens
from agent_cli.ext.batch.tasks import BatchTask
from agent_cli.ext.batch.tree import TaskTree, prepare, tree_name
from agent_cli.ext.sandbox.confine import found
from agent_cli.ext.sandbox.policy import SandboxPolicy
from agent_cli.ext.sandbox.wrap import SandboxUnavailable, wrap

OUTPUT_TAIL = 2000
PR_SET_PDEATHSIG = 1


class RunPlan(BaseModel):
    """What every task of one batch shares."""

    out: str = Field(description="The batch's output folder (absolute).")
    batch_key: str = Field(description="Names this batch's worktrees: stable across reruns.")
    default_repo: str = Field(description="The repository a task without `repo` runs in.")
    permission_mode: str | None = None
    sandbox: str | None = None
    task_timeout_s: float = 1800.0
    env: dict[str, str] = Field(default_factory=dict, description="Set for each task's run.")


class TaskOutcome(BaseModel):
    result: TaskResult
    patch: str = Field(default="", description="The task's diff; the batch writes it.")


def agent_command() -> list[str]:
    """This installation's `agent`: the script beside the interpreter, else the module."""
    script = Path(sys.executable).with_name("agent")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "agent_cli"]


def _die_with_parent() -> None:
    # a batch killed with SIGKILL takes its runs with it: nothing writes into a tree after
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _argv(task: BatchTask, tree: TaskTree, state: Path, plan: RunPlan) -> list[str]:
    argv = [*agent_command(), "run", "-p", "-", "--output-format", "json", "--quiet"]
    argv += ["--workspace", str(tree.path), "--state-dir", str(state)]
    if plan.permission_mode:
        argv += ["--permission-mode", plan.permission_mode]
    if plan.sandbox:
        argv += ["--sandbox", plan.sandbox]
    if task.max_cost_usd is not None:
        argv += ["--max-cost", str(task.max_cost_usd)]
    return argv


def _env(task: BatchTask, plan: RunPlan) -> dict[str, str]:
    """The task's `agent run`: the agent itself, so with its credentials."""
    env = {**os.environ, **plan.env}
    if task.settings:
        env["AGENT_SETTINGS"] = json.dumps(task.settings)
    return env


def _run(
    argv: list[str], cwd: Path, env: dict[str, str], stdin: str, timeout: float
) -> tuple[int, str, str]:
    try:
        done = spawn.run(
            argv,
            cwd=cwd,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=_die_with_parent,
            check=False,
        )
    except spawn.TimeoutExpired:
        return -1, "", f"timed out after {timeout:.0f} s"
    return done.returncode, done.stdout, done.stderr


def _answer(stdout: str) -> dict[str, Any]:
    for line in reversed(stdout.splitlines()):
        with contextlib.suppress(json.JSONDecodeError):
            value = json.loads(line)
            if isinstance(value, dict):
                return value
    return {}


def _tokens(usage: Any) -> Tokens:
    usage = usage if isinstance(usage, dict) else {}
    return Tokens(
        input=int(usage.get("input_tokens", 0) or 0),
        output=int(usage.get("output_tokens", 0) or 0),
        cache_read=int(usage.get("cache_read_input_tokens", 0) or 0),
        cache_write=int(usage.get("cache_creation_input_tokens", 0) or 0),
    )


def _tail(text: str) -> str:
    return redact(text[-OUTPUT_TAIL:], secrets_from_env())


def _check(task: BatchTask, tree: TaskTree, plan: RunPlan) -> TaskResult:
    """The user's check, run as `--goal-check` is: confined by the sandbox and without
    credentials, since the task's own commands could rewrite what it runs."""
    assert task.check is not None
    sandbox = SandboxSettings.model_validate({"mode": plan.sandbox or "auto"})
    try:
        argv = _check_argv(task.check, tree.path, sandbox)
    except SandboxUnavailable as e:
        return TaskResult(id=task.id, status="failed", check_exit=None, check_output=str(e))
    env = default_env(clean_env(base=plan.env))
    code, out, err = _run(argv, tree.path, env, "", plan.task_timeout_s)
    status = "passed" if code == 0 else "failed"
    return TaskResult(id=task.id, status=status, check_exit=code, check_output=_tail(out + err))


def _check_argv(command: str, workspace: Path, sandbox: SandboxSettings) -> list[str]:
    """`bash -c command`, confined as a goal's check is (SandboxUnavailable in required mode
    without a mechanism)."""
    argv = ["bash", "-c", command]
    if sandbox.mode == "off":
        return argv
    policy = SandboxPolicy(
        workspace, write_paths=tuple(sandbox.write_paths), deny_read=tuple(sandbox.deny_read)
    )
    return wrap(argv, policy, found(), sandbox.mode)


def _why(answer: dict[str, Any], stderr: str, code: int) -> str:
    error = answer.get("error")
    if isinstance(error, str) and error:
        return error
    lines = stderr.strip().splitlines()
    return lines[-1] if lines else f"agent run exited {code}"


def _session_files(result: TaskResult, answer: dict[str, Any], state: Path) -> None:
    session = answer.get("session_id")
    if isinstance(session, str):
        result.session_id = session
        transcript = state / ".transcripts" / f"{session}.jsonl"
        result.transcript = str(transcript) if transcript.is_file() else None


def _in_tree(task: BatchTask, tree: TaskTree, plan: RunPlan) -> TaskResult:
    state = Path(plan.out) / "state" / task.id
    state.mkdir(parents=True, exist_ok=True)
    env = _env(task, plan)
    code, out, err = _run(
        _argv(task, tree, state, plan), tree.path, env, task.prompt, plan.task_timeout_s
    )
    answer = _answer(out)
    if code != 0 or answer.get("is_error") or not answer:
        result = TaskResult(id=task.id, status="error", error=_tail(_why(answer, err, code)))
    elif task.check is None:
        result = TaskResult(id=task.id, status="done")
    else:
        result = _check(task, tree, plan)
    result.exit_code = code
    result.cost_usd = float(answer.get("cost_usd") or 0.0)
    result.tokens = _tokens(answer.get("usage"))
    result.turns = answer.get("num_turns") if isinstance(answer.get("num_turns"), int) else None
    _session_files(result, answer, state)
    return result


def run_task(task: BatchTask, plan: RunPlan) -> TaskOutcome:
    started = time.monotonic()
    name = tree_name(plan.batch_key, task.id)
    try:
        tree = prepare(task.repo or plan.default_repo, task.ref, name, Path(plan.out) / "clones")
    except AgentError as e:
        result = TaskResult(id=task.id, status="error", error=f"its tree: {e}")
        result.seconds = round(time.monotonic() - started, 3)
        return TaskOutcome(result=result)
    result = _in_tree(task, tree, plan)
    patch = tree.diff()
    if patch.strip() and result.status in ("failed", "error"):
        result.kept_worktree = str(tree.path)
    else:
        tree.remove()
    result.seconds = round(time.monotonic() - started, 3)
    return TaskOutcome(result=result, patch=patch)
