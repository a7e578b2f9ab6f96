"""Shared by the benchmark scripts: the fake server, running the agent, figures and targets.

Every script prints one line per figure and, with `--json`, one JSON object per figure
(`name, median, min, max, unit, target, ok`) so `bench/run_all.py` can collect them.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.e2e.helpers import run_agent  # noqa: E402 - one way to launch the CLI, shared with the tests

__all__ = ["AGENT", "REPO", "Figure", "agent_env", "report", "run_agent"]

AGENT = [sys.executable, "-m", "agent_cli"]
FAKE_KEY = "sk-test-" + "k" * 32


@dataclass
class Figure:
    name: str
    median: float
    min: float
    max: float
    unit: str
    target: str = ""
    ok: bool = True

    @classmethod
    def of(
        cls, name: str, values: list[float], unit: str, target: str = "", ok: bool = True
    ) -> Figure:
        return cls(name, statistics.median(values), min(values), max(values), unit, target, ok)

    def line(self) -> str:
        flag = "" if self.ok else "  MISSED"
        return (
            f"{self.name:<44} median {self.median:10.3f}  min {self.min:10.3f}  "
            f"max {self.max:10.3f} {self.unit:<6} {self.target}{flag}"
        )


def agent_env(base_url: str, home: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(
        PYTHONPATH=str(REPO),
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY=FAKE_KEY,
        HOME=home,
        NO_COLOR="1",
    )
    return env


def report(figures: list[Figure], as_json: bool) -> int:
    for figure in figures:
        print(json.dumps(asdict(figure)) if as_json else figure.line())
    return 0 if all(f.ok for f in figures) else 1
