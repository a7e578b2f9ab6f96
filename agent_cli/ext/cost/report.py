"""`agent sessions show ID --cost`: a recorded session's calls (its transcript's call records),
summed per agent, with the misses and their cause."""

from __future__ import annotations

from pathlib import Path

from agent_cli.ext.cost.records import CallEntry, CostSummary, summarize
from agent_cli.session.transcript import CallCostRecord, read_records


def recorded(path: Path) -> list[CallEntry]:
    """The session's judged calls, oldest first (every run's, compactions or not)."""
    return [
        CallEntry.model_validate(r.entry)
        for r in read_records(path)
        if isinstance(r, CallCostRecord)
    ]


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _usd(value: float | None) -> str:
    return "n/a" if value is None else f"${value:.4f}"


def lines(summary: CostSummary) -> list[str]:
    """A table per agent (calls, tokens, hit ratio, cost), the totals, then the misses."""
    head = f"{'agent':<12} {'calls':>5} {'input':>9} {'read':>9} {'write':>9} {'output':>8}"
    out = [f"{head} {'hit':>6} {'cost':>10}"]
    for a in summary.by_agent:
        out.append(
            f"{a.agent:<12} {a.calls:>5} {a.input_tokens:>9} {a.cache_read_tokens:>9} "
            f"{a.cache_write_tokens:>9} {a.output_tokens:>8} {_ratio(a.hit_ratio):>6} "
            f"{_usd(a.cost_usd):>10}"
        )
    out.append(
        f"cache read {summary.read_tokens}  write {summary.write_tokens}  "
        f"hit ratio {_ratio(summary.hit_ratio)}  cost {_usd(summary.cost_usd)}"
    )
    out.append(f"misses: {len(summary.misses)}")
    for m in summary.misses:
        detail = f": {m.detail}" if m.detail else ""
        out.append(f"  call {m.call} {m.agent} {m.cause}{detail}")
    return out


class SessionCostReport:
    """The port `session_cost`: a transcript's cost report as text lines."""

    def report(self, path: Path) -> list[str]:
        return lines(summarize(recorded(path)))
