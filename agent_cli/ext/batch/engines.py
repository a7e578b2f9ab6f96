"""Where tasks run: threads of this process, each driving one `agent run` (local), or Ray tasks
on a cluster's workers (ray). Both take a task and hand back its outcome; the batch decides
what starts when."""

from __future__ import annotations

import concurrent.futures as cf
import logging
import os
import traceback
from typing import Any, Protocol

from agent_cli.core.errors import UsageError
from agent_cli.ext.batch.results import TaskResult
from agent_cli.ext.batch.runner import RunPlan, TaskOutcome, run_task
from agent_cli.ext.batch.tasks import BatchTask

# what a Ray worker's runs need of the driver's environment: the model's address and key, and
# the agent's own switches; nothing else of the user's environment leaves this machine
FORWARDED_PREFIXES = ("ANTHROPIC_", "AGENT_")
RAY_INSTALL = "--engine ray needs Ray: pip install 'agent-cli[ray]'"


def run_guarded(task: BatchTask, plan: RunPlan) -> TaskOutcome:
    """`run_task`, with a bug of ours becoming the task's error instead of the batch's end."""
    try:
        return run_task(task, plan)
    except Exception as e:
        last = traceback.extract_tb(e.__traceback__)[-1:]
        where = f" at {last[0].filename}:{last[0].lineno}" if last else ""
        message = f"internal error: {type(e).__name__}: {e}{where}"
        return TaskOutcome(result=TaskResult(id=task.id, status="error", error=message))


class Engine(Protocol):
    name: str

    def start(self, task: BatchTask, plan: RunPlan) -> None: ...

    def wait(self) -> list[TaskOutcome]:
        """Blocks until at least one started task ended; returns every one that has."""
        ...

    def close(self) -> None: ...


class LocalEngine:
    name = "local"

    def __init__(self, jobs: int) -> None:
        self._pool = cf.ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="batch")
        self._running: set[cf.Future[TaskOutcome]] = set()

    def start(self, task: BatchTask, plan: RunPlan) -> None:
        self._running.add(self._pool.submit(run_guarded, task, plan))

    def wait(self) -> list[TaskOutcome]:
        done, self._running = cf.wait(self._running, return_when=cf.FIRST_COMPLETED)
        return [future.result() for future in done]

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def forwarded_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith(FORWARDED_PREFIXES)}


class RayEngine:
    name = "ray"

    def __init__(self, address: str | None) -> None:
        try:
            import ray
        except ImportError as e:
            raise UsageError(RAY_INSTALL) from e
        self._ray: Any = ray
        if not ray.is_initialized():
            where = address or os.environ.get("RAY_ADDRESS") or None
            try:
                ray.init(address=where, log_to_driver=False, logging_level=logging.ERROR)
            except (ConnectionError, RuntimeError, ValueError) as e:
                raise UsageError(f"--engine ray: cannot reach the cluster at {where}: {e}") from e
        self._remote = ray.remote(num_cpus=1, max_retries=0)(run_guarded)
        self._running: list[Any] = []

    def start(self, task: BatchTask, plan: RunPlan) -> None:
        with_env = plan.model_copy(update={"env": {**forwarded_env(), **plan.env}})
        self._running.append(self._remote.remote(task, with_env))

    def wait(self) -> list[TaskOutcome]:
        done, self._running = self._ray.wait(self._running, num_returns=1)
        if self._running:  # those that ended meanwhile, without waiting for more
            more, self._running = self._ray.wait(
                self._running, num_returns=len(self._running), timeout=0
            )
            done = [*done, *more]
        return [self._ray.get(ref) for ref in done]

    def close(self) -> None:
        for ref in self._running:
            self._ray.cancel(ref, force=True)
        self._running = []


def make_engine(name: str, jobs: int, address: str | None) -> Engine:
    if name == "ray":
        return RayEngine(address)
    return LocalEngine(jobs)
