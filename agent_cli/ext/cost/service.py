"""The run's `cost` service: the run's model calls as records (judged by model/calls.py as they
end), their sums, and the part of `agent run`'s JSON result they make."""

from __future__ import annotations

from typing import Any

from agent_cli.ext.cost.records import CallEntry, CostSummary, summarize


class CostService:
    """`entries()`: this run's calls in order, every agent's; `summary()`: their sums."""

    def __init__(self, runtime: Any) -> None:
        self._runtime = runtime

    def entries(self) -> list[CallEntry]:
        records = list(self._runtime.call_log.records)
        return [CallEntry.model_validate(r.entry) for r in records if r.entry is not None]

    def summary(self) -> CostSummary:
        return summarize(self.entries())

    def result(self) -> dict[str, Any]:
        """`cache` and `cost_by_agent` of `agent run --output-format json`."""
        return result_part(self.summary())

    async def aclose(self) -> None:
        return None


def result_part(summary: CostSummary) -> dict[str, Any]:
    misses = [m.model_dump(include={"call", "agent", "cause", "detail"}) for m in summary.misses]
    return {
        "cache": {
            "read_tokens": summary.read_tokens,
            "write_tokens": summary.write_tokens,
            "hit_ratio": summary.hit_ratio,
            "misses": misses,
        },
        "cost_by_agent": [a.model_dump() for a in summary.by_agent],
    }
