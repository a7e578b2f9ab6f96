"""`agent batch TASKS.jsonl`: many one-shot runs, each in its own worktree or clone, on this
machine (`--engine local`) or a Ray cluster (`--engine ray`); resumable with the same --out."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Literal

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded
from agent_cli.core.errors import UsageError

SandboxOpt = Literal["auto", "required", "off"]
TASKS_FILE = typer.Argument(..., help="TASKS.jsonl: one JSON task per line.")
OUT = typer.Option(None, "--out", help="Results folder (default .agent/batch/<time>).")
SANDBOX = typer.Option(None, "--sandbox", help="auto, required or off.")


def _out_folder(out: Path | None, root: Path) -> Path:
    if out is not None:
        return out.expanduser().resolve()
    from agent_cli.core.files.paths import ensure_state_folder

    ensure_state_folder(root / ".agent")
    return root / ".agent" / "batch" / time.strftime("%Y%m%d-%H%M%S")


def _default_repo() -> Path:
    from agent_cli.ext.worktrees.git import repo_root

    try:
        return repo_root(Path.cwd())
    except UsageError:
        return Path.cwd().resolve()  # tasks naming their own repo still run


@guarded
def batch(
    tasks_file: Path = TASKS_FILE,
    jobs: int | None = typer.Option(None, "--jobs", "-j", min=1, help="Tasks run at once."),
    out: Path | None = OUT,
    max_cost: float | None = typer.Option(
        None, "--max-cost", min=0.0, help="USD for the whole batch: no task starts once spent."
    ),
    permission_mode: opt.PermissionModeOpt | None = opt.PERMISSION_MODE,
    sandbox: SandboxOpt | None = SANDBOX,
    engine: Literal["local", "ray"] = typer.Option("local", "--engine", help="local or ray."),
    address: str | None = typer.Option(
        None, "--address", help="Ray cluster (default RAY_ADDRESS)."
    ),
    rerun_failed: bool = typer.Option(False, "--rerun-failed", help="Rerun tasks that failed too."),
    task_timeout: float = typer.Option(1800.0, "--task-timeout", min=1.0, help="Seconds per task."),
    as_json: bool = typer.Option(False, "--json", help="The results as one JSON array."),
) -> None:
    from rich.console import Console

    from agent_cli.ext.batch.batch import BatchSpec, batch_key, default_jobs, run_batch
    from agent_cli.ext.batch.engines import make_engine
    from agent_cli.ext.batch.progress import Progress, footer_lines, summary
    from agent_cli.ext.batch.runner import RunPlan
    from agent_cli.ext.batch.tasks import load_tasks

    tasks = load_tasks(tasks_file)
    root = _default_repo()
    folder = _out_folder(out, root)
    spec = BatchSpec(tasks, folder, jobs or default_jobs(), max_cost, rerun_failed)
    plan = RunPlan(
        out=str(folder),
        batch_key=batch_key(folder),
        default_repo=str(root),
        permission_mode=permission_mode,
        sandbox=sandbox,
        task_timeout_s=task_timeout,
    )
    chosen = make_engine(engine, spec.jobs, address)
    err = Console(stderr=True, highlight=False)
    with Progress(err) as listen:
        ended = run_batch(spec, plan, chosen, listen)
    if as_json:
        typer.echo(json.dumps([r.model_dump() for r in ended], indent=1))
    else:
        footer = footer_lines(ended, spec.jobs, engine, str(folder))
        Console(highlight=False, soft_wrap=True).print(summary(ended, footer))
    if any(r.status not in ("passed", "done") for r in ended):
        raise typer.Exit(1)
