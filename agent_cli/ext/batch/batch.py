"""The batch: which tasks run (a rerun skips the finished), in what order and how many at once,
within the money left; every outcome written as it comes."""

from __future__ import annotations

import hashlib
import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent_cli.ext.batch import results
from agent_cli.ext.batch.engines import Engine
from agent_cli.ext.batch.results import TaskResult
from agent_cli.ext.batch.runner import RunPlan, TaskOutcome
from agent_cli.ext.batch.tasks import BatchTask

RESULTS = "results.jsonl"


def default_jobs() -> int:
    """Runs wait on the model most of the time; what they run (tests, builds) needs a core."""
    return max(2, min(8, os.cpu_count() or 2))


def batch_key(out: Path) -> str:
    return hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:6]


@dataclass
class BatchSpec:
    tasks: list[BatchTask]
    out: Path
    jobs: int
    max_cost_usd: float | None = None
    rerun_failed: bool = False


@dataclass
class Tally:
    """What the progress display shows."""

    total: int
    running: set[str] = field(default_factory=set)
    ended: dict[str, TaskResult] = field(default_factory=dict)
    spent_usd: float = 0.0
    reused: int = 0


Listener = Callable[[Tally], None]


def wanted(previous: TaskResult | None, rerun_failed: bool) -> bool:
    if previous is None or previous.status not in results.FINISHED:
        return True  # never ran, errored, was skipped, or was cut off by a kill
    return rerun_failed and previous.status == "failed"


def _keep(outcome: TaskOutcome, out: Path) -> TaskResult:
    result = outcome.result
    if outcome.patch.strip():
        path = out / f"{result.id}.diff"
        path.write_text(outcome.patch, encoding="utf-8")
        result.diff = str(path)
    results.append(out / RESULTS, result)
    return result


def _skipped(task: BatchTask, spec: BatchSpec) -> TaskResult:
    why = f"the batch's --max-cost of ${spec.max_cost_usd:.2f} was spent"
    result = TaskResult(id=task.id, status="skipped", error=why)
    results.append(spec.out / RESULTS, result)
    return result


def run_batch(spec: BatchSpec, plan: RunPlan, engine: Engine, listen: Listener) -> list[TaskResult]:
    """Each task's newest result, in the task file's order. `--max-cost` counts what this
    output folder's earlier runs spent too: no task starts once the batch's money is gone."""
    spec.out.mkdir(parents=True, exist_ok=True)
    previous = results.read(spec.out / RESULTS)
    tally = Tally(total=len(spec.tasks))
    for task in spec.tasks:
        tally.spent_usd += previous[task.id].cost_usd if task.id in previous else 0.0
        if not wanted(previous.get(task.id), spec.rerun_failed):
            tally.ended[task.id] = previous[task.id]
            tally.reused += 1
    queue = deque(t for t in spec.tasks if t.id not in tally.ended)

    def spent() -> bool:
        return spec.max_cost_usd is not None and tally.spent_usd >= spec.max_cost_usd

    listen(tally)
    try:
        while queue or tally.running:
            while queue and len(tally.running) < spec.jobs and not spent():
                task = queue.popleft()
                engine.start(task, plan)
                tally.running.add(task.id)
            if not tally.running:
                break
            listen(tally)
            for outcome in engine.wait():
                result = _keep(outcome, spec.out)
                tally.running.discard(result.id)
                tally.ended[result.id] = result
                tally.spent_usd += result.cost_usd
                listen(tally)
        for task in queue:
            tally.ended[task.id] = _skipped(task, spec)
    finally:
        engine.close()
    listen(tally)
    return [tally.ended[t.id] for t in spec.tasks if t.id in tally.ended]
