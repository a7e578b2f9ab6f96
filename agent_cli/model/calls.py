"""Each model call's place in its session: which agent made it (`main`, `sub1`… in the order the
subagents first called, `summary`, `episode`, `goal_check`, `aside`…), its number, and for a call
that wrote more cache than it read, the cause (model/fingerprint.py). The cost extension reads
the entries; the session's transcript keeps them (with each agent's newest fingerprint) so a
resumed session judges its next call against the run before.

A miss is a call that wrote cache because its request broke the prefix the same agent's
previous request had cached (a changed part, or the TTL passed), however small the rewrite
against what it still read (a tools prefix read whole, the system prompt after it rewritten, is
one); an agent's first call is one when it wrote more than it read."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Protocol

from agent_cli.model.fingerprint import Fingerprint, miss_cause
from agent_cli.model.usage import Usage

LABELS = {"summariser": "summary", "goal-evaluator": "goal_check", "btw": "aside"}
SUBAGENT = "subagent:"
DEFAULT_TTL_S = 300.0  # the API's default cache TTL (5 minutes)

Sink = Callable[[dict[str, Any]], None]


def ttl_seconds(value: object) -> float:
    """`5m`, `1h`, `300s` or a number of seconds; anything else: the default."""
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and value[:-1].isdigit():
        unit = {"s": 1, "m": 60, "h": 3600}.get(value[-1])
        if unit is not None:
            return float(int(value[:-1]) * unit)
    return DEFAULT_TTL_S


class Judged(Protocol):
    """What is judged of a call (model/call_log.py's record)."""

    caller: str
    model: str
    usage: Usage | None
    cost_usd: float | None
    fingerprint: Fingerprint | None
    entry: dict[str, Any] | None
    judged_at: float


def _seconds(raw: dict[str, Any]) -> float:
    try:
        return datetime.fromisoformat(str(raw.get("at"))).timestamp()
    except ValueError:
        return 0.0


def _wrote_more(usage: Usage) -> bool:
    return usage.cache_creation_input_tokens > usage.cache_read_input_tokens


class Calls:
    """The judge of one run's calls; `clock` is injectable (tests move time, never sleep)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.ttl_s: Callable[[str], float] = lambda agent: DEFAULT_TTL_S
        self.sink: Sink | None = None  # the session's transcript
        self.count = 0
        self._labels: dict[str, str] = {}
        self._previous: dict[str, tuple[Fingerprint, float]] = {}

    def adopt(self, calls: int, earlier: list[dict[str, Any]], sink: Sink | None) -> None:
        """A session opens: its calls so far (`earlier`: the transcript's call records, oldest
        first) go on being numbered and judged; new calls go to `sink`."""
        self.count, self.sink = calls, sink
        self._labels, self._previous = {}, {}
        for raw in earlier:
            entry = raw.get("entry") or {}
            caller, agent = str(raw.get("caller", "")), str(entry.get("agent", ""))
            if not caller or not agent:
                continue
            self._labels[caller] = agent
            self.count = max(self.count, int(entry.get("call", 0)))
            if isinstance(raw.get("fp"), dict):
                self._previous[agent] = (Fingerprint.from_stored(raw["fp"]), _seconds(raw))

    def label(self, caller: str) -> str:
        if caller not in self._labels:
            if caller.startswith(SUBAGENT):
                taken = sum(1 for a in self._labels.values() if a.startswith("sub"))
                self._labels[caller] = f"sub{taken + 1}"
            else:
                self._labels[caller] = LABELS.get(caller, caller.replace("-", "_"))
        return self._labels[caller]

    def judge(self, record: Judged) -> dict[str, Any]:
        """Number, label and judge a call that ended with usage (the log's lock held); the
        fields its log line gains."""
        assert record.usage is not None
        usage, agent, now = record.usage, self.label(record.caller), self.clock()
        self.count += 1
        found: tuple[str, str] | None = None
        if record.fingerprint is not None:
            before = self._previous.get(agent)
            if usage.cache_creation_input_tokens > 0:
                gap = now - before[1] if before is not None else None
                fp = before[0] if before is not None else None
                found = miss_cause(fp, record.fingerprint, gap, self.ttl_s(agent))
            if found is not None and found[0] == "first" and not _wrote_more(usage):
                found = None  # it began on a prefix another agent wrote: not a miss
            self._previous[agent] = (record.fingerprint, now)
        cause, detail = found or (None, "")
        record.judged_at = now
        record.entry = {
            "call": self.count,
            "agent": agent,
            "model": record.model,
            "input_tokens": usage.input_tokens,
            "cache_read_tokens": usage.cache_read_input_tokens,
            "cache_write_tokens": usage.cache_creation_input_tokens,
            "output_tokens": usage.output_tokens,
            "cost_usd": record.cost_usd,
            "cause": cause,
            "detail": detail,
        }
        return {k: record.entry[k] for k in ("agent", "call", "cost_usd", "cause", "detail")}

    def tell(self, record: Judged) -> None:
        """The judged call to the session's transcript (outside the log's lock)."""
        if self.sink is None or record.entry is None:
            return
        fp = record.fingerprint.stored() if record.fingerprint is not None else None
        at = datetime.fromtimestamp(record.judged_at, UTC).isoformat(timespec="milliseconds")
        self.sink({"caller": record.caller, "entry": record.entry, "fp": fp, "at": at})
