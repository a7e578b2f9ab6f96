"""The run's `cost` service: the run's model calls as records, and their sums."""

from __future__ import annotations

from typing import Any

from agent_cli.ext.cost.records import CallEntry, CostSummary, summarize


class CostService:
    """`entries()`: this run's calls in order; `summary()`: their sums."""

    def __init__(self, runtime: Any) -> None:
        self._runtime = runtime

    def entries(self) -> list[CallEntry]:
        records = getattr(self._runtime.call_log, "records", [])
        return [r.entry for r in records if getattr(r, "entry", None) is not None]

    def summary(self) -> CostSummary:
        return summarize(self.entries())

    async def aclose(self) -> None:
        return None
