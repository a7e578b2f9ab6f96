"""The eval's report: per case and overall, for the runs with and without the plugin, the pass
rate, mean turns and cost, and the difference (with minus without). Every figure is counted
from the runs' own records; a run not made (`--max-cost`) counts in neither arm."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from agent_cli.ext.plugins.evaluate.runner import RunRecord


class ArmFigures(BaseModel):
    runs: int
    passed: int
    pass_rate: float | None  # None: no run of this arm was made
    mean_turns: float | None
    cost_usd: float
    mean_cost_usd: float | None


class Difference(BaseModel):
    """With minus without; None where either side has no run."""

    pass_rate: float | None
    mean_turns: float | None
    mean_cost_usd: float | None


class Figures(BaseModel):
    with_: ArmFigures
    without: ArmFigures
    difference: Difference

    def dumped(self) -> dict[str, Any]:
        return {
            "with": self.with_.model_dump(),
            "without": self.without.model_dump(),
            "difference": self.difference.model_dump(),
        }


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 6) if values else None


def arm_figures(records: list[RunRecord]) -> ArmFigures:
    made = [r for r in records if r.made]
    passed = sum(r.passed for r in made)
    cost = sum(r.cost_usd for r in made)
    return ArmFigures(
        runs=len(made),
        passed=passed,
        pass_rate=round(passed / len(made), 6) if made else None,
        mean_turns=_mean([float(r.turns) for r in made if r.turns is not None]),
        cost_usd=round(cost, 6),
        mean_cost_usd=round(cost / len(made), 6) if made else None,
    )


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(a - b, 6)


def figures(records: list[RunRecord]) -> Figures:
    with_ = arm_figures([r for r in records if r.arm == "with"])
    without = arm_figures([r for r in records if r.arm == "without"])
    difference = Difference(
        pass_rate=_minus(with_.pass_rate, without.pass_rate),
        mean_turns=_minus(with_.mean_turns, without.mean_turns),
        mean_cost_usd=_minus(with_.mean_cost_usd, without.mean_cost_usd),
    )
    return Figures(with_=with_, without=without, difference=difference)


def report(
    plugin: str, records: list[RunRecord], runs: int, out: str, max_cost: float | None
) -> dict[str, Any]:
    """The report as one JSON object (`--json`), and what the table is drawn from."""
    case_ids = list(dict.fromkeys(r.case for r in records))
    return {
        "plugin": plugin,
        "runs_per_arm": runs,
        "cases": [
            {"id": c, **figures([r for r in records if r.case == c]).dumped()} for c in case_ids
        ],
        "overall": figures(records).dumped(),
        "not_made": sum(not r.made for r in records),
        "spent_usd": round(sum(r.cost_usd for r in records), 6),
        "max_cost_usd": max_cost,
        "out": out,
        "runs": [r.model_dump() for r in records],
    }


def _rate(arm: dict[str, Any]) -> str:
    if arm["pass_rate"] is None:
        return "-"
    return f"{arm['passed']}/{arm['runs']} ({arm['pass_rate']:.0%})"


def _num(value: float | None, digits: int, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _row(table: Table, name: str, fig: dict[str, Any], style: str = "") -> None:
    w, wo, d = fig["with"], fig["without"], fig["difference"]
    points = None if d["pass_rate"] is None else d["pass_rate"] * 100
    table.add_row(
        Text(name, style=style),
        _rate(w),
        _rate(wo),
        "-" if points is None else f"{points:+.0f} pts",
        f"{_num(w['mean_turns'], 1)} / {_num(wo['mean_turns'], 1)}",
        _num(d["mean_turns"], 1, signed=True),
        f"{_num(w['mean_cost_usd'], 4)} / {_num(wo['mean_cost_usd'], 4)}",
        _num(d["mean_cost_usd"], 4, signed=True),
    )


def rendered(data: dict[str, Any]) -> Group:
    cases, runs = len(data["cases"]), data["runs_per_arm"]
    title = f"agent plugin eval {data['plugin']}: {cases} cases, {runs} runs each with and without"
    table = Table(title=title, title_justify="left", expand=False)
    for name in ("case", "passed with", "without", "Δ", "turns with / without", "Δ",
                 "$ per run with / without", "Δ $"):  # fmt: skip
        table.add_column(name, overflow="fold")
    for case in data["cases"]:
        _row(table, case["id"], case)
    _row(table, "all", data["overall"], style="bold")
    lines = [f"spent ${data['spent_usd']:.4f}; the runs' results: {data['out']}"]
    if data["not_made"]:
        lines.append(
            f"{data['not_made']} runs not made: the --max-cost of ${data['max_cost_usd']:.2f} "
            "was spent"
        )
    failed = [r for r in data["runs"] if r["made"] and not r["passed"]]
    for run in failed:
        why = ", ".join(run["failed_checks"]) or run["error"] or run["status"]
        said = "errored" if run["status"] == "error" else "failed"
        lines.append(f"{run['id']} {said}: {why.splitlines()[0] if why else ''}")
    kept = [r["kept_worktree"] for r in data["runs"] if r["kept_worktree"]]
    lines += [f"kept {path}" for path in kept]
    return Group(table, *(Text(line) for line in lines))


def show(data: dict[str, Any]) -> None:
    Console(highlight=False, soft_wrap=True).print(rendered(data))
