"""`/context` on screen: a bar of the window by category with the compaction threshold marked,
then a row per category. Plain characters, so it reads the same without colour; every line fits
in 80 columns."""

from __future__ import annotations

from agent_cli.context.breakdown import LABELS, ContextBreakdown

BAR_CELLS = 60
SYMBOLS = {
    "system_prompt": "#",
    "tool_definitions": "=",
    "mcp_tools": "%",
    "skills_and_instructions": "+",
    "messages": "o",
    "tool_results": "x",
}
FREE, MARK = ".", "|"


def bar(view: ContextBreakdown, cells: int = BAR_CELLS) -> str:
    """Each category's share of the window in cells (one at least when it holds anything),
    free space after, the compaction threshold as `|`."""
    out: list[str] = []
    for key, tokens in view.categories.items():
        if tokens > 0:
            out += [SYMBOLS[key]] * max(1, round(cells * view.share(tokens)))
    out = out[:cells] + [FREE] * max(0, cells - len(out))
    at = min(cells - 1, round(cells * view.share(view.compact_at)))
    out[at] = MARK
    return "[" + "".join(out) + "]"


def percent(view: ContextBreakdown, tokens: int) -> str:
    return f"{100 * view.share(tokens):5.1f}%"


def context_lines(view: ContextBreakdown) -> list[str]:
    used = f"{view.used:,} of {view.window:,} tokens ({100 * view.share(view.used):.0f}%)"
    error = f"±{100 * view.estimate_error:.0f}%"
    basis = "calibrated on the last request" if view.calibrated else "before any request"
    lines = [f"Context of {view.model}: {used}", f"Estimate {error}, {basis}.", bar(view)]
    for key, label in LABELS.items():
        tokens = view.categories.get(key, 0)
        lines.append(f" {SYMBOLS[key]}  {label:<24}{tokens:>10,}  {percent(view, tokens)}")
    lines.append(f" {FREE}  {'Free':<24}{view.free:>10,}  {percent(view, view.free)}")
    share = 100 * view.share(view.compact_at)
    lines.append(
        f" {MARK}  Compaction starts at {view.compact_at:,} tokens ({share:.0f}%; "
        "context.compact_at)"
    )
    return lines
