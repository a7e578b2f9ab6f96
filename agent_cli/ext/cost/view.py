"""What the cost extension shows, as text: `/cost`'s table per agent and its misses, the side
panel's lines, the status bar's part and the status line's facts. Pure functions of a
`CostSummary` (and the budget), so each is tested on values made by hand."""

from __future__ import annotations

from typing import Any

from agent_cli.core.text.money import cost
from agent_cli.ext.cost.records import AgentCost, CostSummary
from agent_cli.ui.render.render import tokens

WARN_AT = 0.8  # the budget's share past which the meter says so
METER_CELLS = 10
# (heading, width): the table is 75 columns, so 80-column terminals show it whole
COLUMNS = (("agent", 12), ("calls", 5), ("input", 7), ("read", 7), ("write", 7),
           ("output", 7), ("hit", 5), ("cost", 9))  # fmt: skip


def ratio(value: float | None) -> str:
    """`92%`; `-` when nothing was sent."""
    return "-" if value is None else f"{100 * value:.0f}%"


def usd(value: float | None) -> str:
    """`$0.0123`, `$12.35` from $10 on; `n/a` when no call had a price."""
    if value is None:
        return "n/a"
    return f"${value:.4f}" if value < 10 else f"${value:.2f}"


def _row(cells: list[str]) -> str:
    (_, first), *rest = COLUMNS
    out = [cells[0][:first].ljust(first)]
    out += [text.rjust(width) for text, (_, width) in zip(cells[1:], rest, strict=True)]
    return "  ".join(out).rstrip()


def _cells(row: AgentCost) -> list[str]:
    return [
        row.agent,
        str(row.calls),
        tokens(row.input_tokens),
        tokens(row.cache_read_tokens),
        tokens(row.cache_write_tokens),
        tokens(row.output_tokens),
        ratio(row.hit_ratio),
        usd(row.cost_usd),
    ]


def total(summary: CostSummary) -> AgentCost:
    """Every agent's calls summed, as one more row."""
    rows = summary.by_agent
    costs = [r.cost_usd for r in rows if r.cost_usd is not None]
    return AgentCost(
        agent="total",
        calls=sum(r.calls for r in rows),
        input_tokens=sum(r.input_tokens for r in rows),
        cache_read_tokens=summary.read_tokens,
        cache_write_tokens=summary.write_tokens,
        output_tokens=sum(r.output_tokens for r in rows),
        hit_ratio=summary.hit_ratio,
        cost_usd=summary.cost_usd if summary.cost_usd is not None else sum(costs) or None,
    )


def fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 1)] + "…"


def table_lines(summary: CostSummary, width: int = 80) -> list[str]:
    """One row per agent (in order of its first call) and the total: calls, uncached input,
    cache read and write, output tokens, hit ratio (cache read over all input), cost."""
    if not summary.by_agent:
        return ["No model calls yet."]
    rows = [_row([name for name, _ in COLUMNS])]
    rows += [_row(_cells(agent)) for agent in summary.by_agent]
    if len(summary.by_agent) > 1:
        rows.append(_row(_cells(total(summary))))
    return [fit(row, width) for row in rows]


def miss_lines(summary: CostSummary, width: int = 80) -> list[str]:
    """Each call that wrote more cache than it read: its number, agent, cause and what
    changed (the part of the system prompt, the tool, the gap)."""
    if not summary.misses:
        return ["No cache misses."] if summary.by_agent else []
    lines = [f"Cache misses ({len(summary.misses)}):"]
    for miss in summary.misses:
        wrote = f"wrote {tokens(miss.cache_write_tokens)}"
        said = f"{miss.cause}: {miss.detail}" if miss.detail else str(miss.cause)
        lines.append(fit(f"  #{miss.call:<4} {miss.agent[:10]:<10} {said} ({wrote})", width))
    return lines


def spent_of(spent: float, limit: float) -> str:
    """`$0.30/$1.00`; a budget under $1 with a third decimal (`$0.068/$0.080`)."""
    digits = 2 if limit >= 1 else 3
    return f"${spent:.{digits}f}/${limit:.{digits}f}"


def meter(spent: float, limit: float, cells: int = METER_CELLS, color: bool = True) -> str:
    """`███░░░░░░░ $0.30/$1.00`: what is spent of the budget."""
    share = min(max(spent / limit, 0.0), 1.0) if limit else 1.0
    filled = round(cells * share)
    full, empty = ("█", "░") if color else ("#", "-")
    return f"{full * filled}{empty * (cells - filled)} {spent_of(spent, limit)}"


def budget_line(spent: float, limit: float, color: bool = True) -> str:
    """The meter, and the share once past 80 %."""
    share = spent / limit if limit else 1.0
    warn = f" {100 * share:.0f}%!" if share >= WARN_AT else ""
    return f"budget {meter(spent, limit, color=color)}{warn}"


def cost_lines(summary: CostSummary, limit: float | None, width: int = 80) -> list[str]:
    """All of `/cost`: the table, the budget's meter when there is one, the misses."""
    lines = table_lines(summary, width)
    if limit is not None:
        lines.append(fit(budget_line(summary.cost_usd or 0.0, limit), width))
    return [*lines, *miss_lines(summary, width)]


def panel_lines(summary: CostSummary, limit: float | None, width: int) -> list[str]:
    """The side panel's part: what the status bar (hit ratio, cost) and the Usage section do
    not say: the budget's meter (from the start: a budget is seen before it is spent) and the
    misses that had a cause (a session's first call writes the cache by nature). Nothing in a
    session without a budget and without such misses: a taller panel is paid at every redraw
    and resize, so it grows only when there is something to see."""
    lines = [] if limit is None else [budget_line(summary.cost_usd or 0.0, limit)]
    caused = [m for m in summary.misses if m.cause != "first"]
    if caused:
        causes = ", ".join(dict.fromkeys(str(m.cause) for m in caused))
        lines.append(f"misses {len(caused)} ({causes})")
    return [fit(line, width) for line in lines]


def status_text(summary: CostSummary, limit: float | None) -> str:
    """The status bar's part: `hit 92% $0.012`, or with a budget `hit 92% $0.30/$1.00`."""
    if not summary.by_agent:
        return "" if limit is None else spent_of(0.0, limit)
    spent = spent_of(summary.cost_usd or 0.0, limit) if limit else cost(summary.cost_usd)
    return f"hit {ratio(summary.hit_ratio)} {spent}"


def status_facts(summary: CostSummary, limit: float | None) -> dict[str, Any]:
    """What the status line's command reads of it (under "agent" in its JSON)."""
    spent = summary.cost_usd
    share = None if limit is None or spent is None else round(100 * spent / limit, 1)
    return {
        "cache": {
            "hit_ratio": None if summary.hit_ratio is None else round(summary.hit_ratio, 4),
            "read_tokens": summary.read_tokens,
            "write_tokens": summary.write_tokens,
            "misses": len(summary.misses),
        },
        "cost_usd": None if spent is None else round(spent, 6),
        "budget": {"max_cost_usd": limit, "used_percentage": share},
    }
