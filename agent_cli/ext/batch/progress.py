"""The batch on screen: a live line of counts and spend while it runs (a line per ended task
when stderr is no terminal), and the summary table at the end."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from agent_cli.ext.batch.batch import Tally
from agent_cli.ext.batch.results import TaskResult

STYLE = {"passed": "green", "done": "green", "failed": "red", "error": "red", "skipped": "yellow"}


def counts(tally: Tally) -> str:
    ended = list(tally.ended.values())
    bad = sum(r.status in ("failed", "error") for r in ended)
    return (
        f"batch: {len(ended)}/{tally.total} ended · {len(tally.running)} running · "
        f"{bad} failed · ${tally.spent_usd:.4f} spent"
    )


def _live_view(tally: Tally) -> Group:
    running = ", ".join(sorted(tally.running)) or "-"
    return Group(Text(counts(tally)), Text(f"running: {running}", style="dim"))


class Progress:
    """A Listener: redraws on a terminal, else writes each ended task once."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._live: Live | None = None
        self._said: set[str] = set()

    def __enter__(self) -> Progress:
        if self._console.is_terminal:
            self._live = Live(console=self._console, auto_refresh=False, transient=True)
            self._live.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._live is not None:
            self._live.__exit__(kind, e, tb)

    def __call__(self, tally: Tally) -> None:
        if self._live is not None:
            self._live.update(_live_view(tally), refresh=True)
            return
        for task_id, result in tally.ended.items():
            if task_id not in self._said:
                self._said.add(task_id)
                self._console.print(f"{task_id}: {result.status}  ({counts(tally)})")


def summary(results: list[TaskResult], footer: list[str]) -> Group:
    table = Table(title="agent batch", title_justify="left", expand=False)
    for name in ("task", "status", "exit", "check", "cost $", "tokens in/out", "s", "diff"):
        table.add_column(name, overflow="fold")
    for r in results:
        table.add_row(
            r.id,
            Text(r.status, style=STYLE[r.status]),
            "-" if r.exit_code is None else str(r.exit_code),
            "-" if r.check_exit is None else str(r.check_exit),
            f"{r.cost_usd:.4f}",
            f"{r.tokens.input + r.tokens.cache_read + r.tokens.cache_write}/{r.tokens.output}",
            f"{r.seconds:.1f}",
            "yes" if r.diff else "-",
        )
    return Group(table, *(Text(line) for line in footer))


def footer_lines(results: list[TaskResult], jobs: int, engine: str, out: str) -> list[str]:
    by: dict[str, int] = {}
    for r in results:
        by[r.status] = by.get(r.status, 0) + 1
    lines = [
        " · ".join(f"{n} {s}" for s, n in sorted(by.items())),
        f"{engine} engine, --jobs {jobs}; results in {out}/results.jsonl",
    ]
    if by.get("skipped"):
        lines.append(f"{by['skipped']} skipped: the --max-cost was spent before they could start")
    lines += [
        f"kept {r.kept_worktree} ({r.id}: {r.status}, it changed files)"
        for r in results
        if r.kept_worktree
    ]
    lines += [f"{r.id}: {r.error}" for r in results if r.status == "error" and r.error]
    return lines
