"""`agent plugin eval NAME --cases FILE`: does the plugin help? Each case runs N times with
the plugin and N times without, each run in a worktree of its own (as `agent batch` runs a
task), and the report compares pass rates, turns and cost."""

from __future__ import annotations

import json
import time
from pathlib import Path

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded

NAME = typer.Argument(..., help="The installed plugin: NAME or NAME@MARKETPLACE.")
CASES = typer.Option(..., "--cases", help="A JSON list of cases: id, prompt, checks.")
OUT = typer.Option(None, "--out", help="Where the runs' results go (default .agent/eval/<time>).")


def _repo() -> Path:
    """The checkout's top: each run is a worktree of it (through the spine's git gate, as
    batch's git goes)."""
    from agent_cli.core.errors import UsageError
    from agent_cli.core.outside import git_cli
    from agent_cli.core.outside.git import UnsafeRepository, neutral_env

    here = Path.cwd()
    try:
        done = git_cli.run_git(here, "rev-parse", "--show-toplevel", env=neutral_env(here))
    except FileNotFoundError as e:
        raise UsageError("git is not installed: each eval run is a worktree") from e
    except UnsafeRepository as e:
        raise UsageError(f"git in {here}: {e}") from e
    if done.returncode != 0:
        raise UsageError(f"{here}: not inside a git repository (each eval run is a worktree)")
    return Path(done.stdout.decode().strip()).resolve()


def _out(out: Path | None, root: Path, plugin: str) -> Path:
    if out is not None:
        return out.expanduser().resolve()
    from agent_cli.core.files.paths import ensure_state_folder

    ensure_state_folder(root / ".agent")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return root / ".agent" / "eval" / f"{plugin.split('@')[0]}-{stamp}"


@guarded
def plugin_eval(
    name: str = NAME,
    cases: Path = CASES,
    runs: int = typer.Option(3, "--runs", min=1, max=100, help="Runs of each case each way."),
    max_cost: float | None = typer.Option(
        None, "--max-cost", min=0.0, help="USD for the whole eval: no run starts once spent."
    ),
    as_json: bool = typer.Option(False, "--json", help="The report as one JSON object."),
    model: str | None = typer.Option(None, "--model", help="The model of every run."),
    jobs: int | None = typer.Option(None, "--jobs", "-j", min=1, help="Runs at once."),
    permission_mode: opt.PermissionModeOpt | None = opt.PERMISSION_MODE,
    out: Path | None = OUT,
) -> None:
    from agent_cli.ext.batch.batch import default_jobs
    from agent_cli.ext.plugins.evaluate.cases import load_cases
    from agent_cli.ext.plugins.evaluate.report import report, show
    from agent_cli.ext.plugins.evaluate.runner import EvalPlan, run_eval
    from agent_cli.ext.plugins.store import Store, find

    loaded = load_cases(cases)
    plugin = find(Store().read(), name).key  # exit 2 when it is not installed
    root = _repo()
    folder = _out(out, root, plugin)
    plan = EvalPlan(plugin, loaded, runs, folder, root, jobs or default_jobs(), max_cost, model,
                    permission_mode)  # fmt: skip
    data = report(plugin, run_eval(plan), runs, str(folder), max_cost)
    (folder / "report.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    if as_json:
        typer.echo(json.dumps(data, indent=1))
    else:
        show(data)
    if any(run["status"] == "error" for run in data["runs"]):
        raise typer.Exit(1)  # some figures count runs that never reached an answer
