"""What each model call cost and, for a call that wrote more cache than it read, why: the
records' models (the single source for the transcript, logs/llm-calls.jsonl, the JSON result of
`agent run`, `/cost`, the panel and `agent sessions show --cost`) and the sums over them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel

Cause = Literal["first", "model", "system", "tools", "history", "expired"]
CAUSES: tuple[Cause, ...] = ("first", "model", "system", "tools", "history", "expired")


class CallEntry(BaseModel):
    """One model call: who made it (`main`, `sub1`…, `summary`, `episode`, `note_review`,
    `goal_check`, `aside`…), its tokens and cost, and the cause of a miss (None: a hit)."""

    call: int
    agent: str
    model: str
    input_tokens: int = 0  # uncached input
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    cause: Cause | None = None
    detail: str = ""

    @property
    def missed(self) -> bool:
        return self.cause is not None


class AgentCost(BaseModel):
    """One agent's calls summed."""

    agent: str
    calls: int = 0
    input_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    hit_ratio: float | None = None
    cost_usd: float | None = None


class CostSummary(BaseModel):
    """A session's (or run's) calls summed: per agent in order of first call, the misses, and
    the totals over every agent."""

    by_agent: list[AgentCost] = []
    misses: list[CallEntry] = []
    read_tokens: int = 0
    write_tokens: int = 0
    hit_ratio: float | None = None
    cost_usd: float | None = None


def hit_ratio(uncached: int, write: int, read: int) -> float | None:
    """Cache-read tokens over all input tokens (uncached + cache write + cache read); None when
    nothing was sent."""
    total = uncached + write + read
    return read / total if total else None


def agent_cost(agent: str, entries: Iterable[CallEntry]) -> AgentCost:
    mine = [e for e in entries if e.agent == agent]
    costs = [e.cost_usd for e in mine if e.cost_usd is not None]
    uncached = sum(e.input_tokens for e in mine)
    read = sum(e.cache_read_tokens for e in mine)
    write = sum(e.cache_write_tokens for e in mine)
    return AgentCost(
        agent=agent,
        calls=len(mine),
        input_tokens=uncached,
        cache_read_tokens=read,
        cache_write_tokens=write,
        output_tokens=sum(e.output_tokens for e in mine),
        hit_ratio=hit_ratio(uncached, write, read),
        cost_usd=sum(costs) if costs else None,
    )


def summarize(entries: Iterable[CallEntry]) -> CostSummary:
    """The sums of `entries` (a cost of None when no call had a known price)."""
    listed = list(entries)
    agents = list(dict.fromkeys(e.agent for e in listed))
    by_agent = [agent_cost(a, listed) for a in agents]
    costs = [a.cost_usd for a in by_agent if a.cost_usd is not None]
    uncached = sum(a.input_tokens for a in by_agent)
    read = sum(a.cache_read_tokens for a in by_agent)
    write = sum(a.cache_write_tokens for a in by_agent)
    return CostSummary(
        by_agent=by_agent,
        misses=[e for e in listed if e.missed],
        read_tokens=read,
        write_tokens=write,
        hit_ratio=hit_ratio(uncached, write, read),
        cost_usd=sum(costs) if costs else None,
    )
