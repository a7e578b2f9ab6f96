"""The eval's runs: each case N times with the plugin and N times without, every run a batch
task (its own worktree, an `agent run` subprocess, the tree's checks confined and without
credentials), so `agent batch`'s runner, engine and `--max-cost` do the running."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from agent_cli.ext.batch.batch import BatchSpec, Tally, batch_key, run_batch
from agent_cli.ext.batch.engines import Engine, LocalEngine
from agent_cli.ext.batch.results import TaskResult
from agent_cli.ext.batch.runner import RunPlan, TaskOutcome
from agent_cli.ext.batch.tasks import BatchTask
from agent_cli.ext.plugins.evaluate.cases import Case
from agent_cli.ext.plugins.evaluate.checks import (
    failed_in_conversation,
    failed_in_tree,
    read_conversation,
    tree_script,
)

Arm = Literal["with", "without"]
ARMS: tuple[Arm, Arm] = ("with", "without")


class RunRecord(BaseModel):
    """One run as the report counts it."""

    id: str
    case: str
    arm: Arm
    n: int
    made: bool
    passed: bool = False
    status: str
    turns: int | None = None
    cost_usd: float = 0.0
    failed_checks: list[str] = []
    error: str | None = None
    kept_worktree: str | None = None

    def outcome(self) -> str:
        if not self.made:
            return "not made"
        if self.passed:
            return "passed"
        return "error" if self.status == "error" else "failed"


@dataclass
class EvalPlan:
    plugin: str  # name@marketplace
    cases: list[Case]
    runs: int
    out: Path
    repo: Path
    jobs: int
    max_cost_usd: float | None = None
    model: str | None = None
    permission_mode: str | None = None


def arm_env(arm: Arm, plugin: str) -> dict[str, str]:
    """The port's switches (both set, so the user's own cannot leak into the other arm)."""
    name = plugin.split("@", 1)[0]
    if arm == "with":
        return {"AGENT_PLUGINS_ON": plugin, "AGENT_PLUGINS_OFF": ""}
    return {"AGENT_PLUGINS_ON": "", "AGENT_PLUGINS_OFF": name}


def run_id(case: Case, arm: Arm, n: int) -> str:
    return f"{case.id}.{arm}.{n}"


def tasks(plan: EvalPlan) -> list[BatchTask]:
    """Round by round, each case with then without: a `--max-cost` stop leaves both arms of
    every case about as many runs."""
    settings = {"model": plan.model} if plan.model else {}
    return [
        BatchTask(id=run_id(c, arm, n), prompt=c.prompt, check=tree_script(c), settings=settings)
        for n in range(1, plan.runs + 1)
        for c in plan.cases
        for arm in ARMS
    ]


class ArmEngine:
    """Batch's local engine, each run given its arm's switches."""

    name = "local"

    def __init__(self, inner: Engine, plugin: str) -> None:
        self._inner = inner
        self._plugin = plugin

    def start(self, task: BatchTask, plan: RunPlan) -> None:
        arm: Arm = "with" if task.id.split(".")[1] == "with" else "without"
        env = {**plan.env, **arm_env(arm, self._plugin)}
        self._inner.start(task, plan.model_copy(update={"env": env}))

    def wait(self) -> list[TaskOutcome]:
        return self._inner.wait()

    def close(self) -> None:
        self._inner.close()


class SayEnded:
    """A batch listener: one line on stderr per ended run, judged as the report judges it."""

    def __init__(self, cases: dict[str, Case]) -> None:
        self._cases = cases
        self._said: set[str] = set()

    def __call__(self, tally: Tally) -> None:
        for task_id, result in tally.ended.items():
            if task_id not in self._said:
                self._said.add(task_id)
                run = judged(self._cases, result)
                spent = f"${tally.spent_usd:.4f} spent"
                sys.stderr.write(f"{task_id}: {run.outcome()}  ({spent})\n")


def record(case: Case, arm: Arm, n: int, result: TaskResult) -> RunRecord:
    base = RunRecord(
        id=result.id,
        case=case.id,
        arm=arm,
        n=n,
        made=result.status != "skipped",
        status=result.status,
        turns=result.turns,
        cost_usd=result.cost_usd,
        error=result.error,
        kept_worktree=result.kept_worktree,
    )
    if result.status not in ("passed", "done", "failed"):
        return base  # errored (or never made): not a pass, its checks not judged
    in_tree = failed_in_tree(case, result.status != "failed", result.check_output)
    if in_tree is None:
        in_tree = [i for i, c in enumerate(case.checks) if c.kind in ("file_exists", "command")]
        base.error = result.check_output
    failed = sorted({*in_tree, *failed_in_conversation(case, read_conversation(result.transcript))})
    base.failed_checks = [case.checks[i].label() for i in failed]
    base.passed = not failed
    return base


def run_eval(plan: EvalPlan) -> list[RunRecord]:
    plan.out.mkdir(parents=True, exist_ok=True)
    spec = BatchSpec(tasks(plan), plan.out, plan.jobs, plan.max_cost_usd)
    batch_plan = RunPlan(
        out=str(plan.out),
        batch_key=batch_key(plan.out),
        default_repo=str(plan.repo),
        permission_mode=plan.permission_mode,
    )
    engine = ArmEngine(LocalEngine(plan.jobs), plan.plugin)
    cases = {c.id: c for c in plan.cases}
    ended = run_batch(spec, batch_plan, engine, SayEnded(cases))
    got = {r.id: r for r in ended}
    return [
        judged(cases, got.get(t.id) or TaskResult(id=t.id, status="skipped")) for t in spec.tasks
    ]


def judged(cases: dict[str, Case], result: TaskResult) -> RunRecord:
    case_id, arm, n = result.id.split(".")
    return record(cases[case_id], "with" if arm == "with" else "without", int(n), result)
