"""What the context pipeline saves on a long session, measured on the requests themselves.

    python bench/context.py

Runs `agent run` against the test model server for 60 rounds, each reading a different 6 KB file
(default settings, the model's window sized down to 60,000 tokens by .agent/settings.json), and
prints: total characters sent versus a naive append-only loop, the largest request, and the share
of requests whose messages begin with all of the previous request's messages (the cached prefix
survived). Exits 1 when a target is missed: total <= 40% of naive, >= 95% cache-stable.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from common import REPO, Figure, report

from tests.e2e.context_session import (
    FILE_BYTES,
    ROUNDS,
    WINDOW,
    figures,
    main_bodies,
    make_workspace,
    script_session,
)
from tests.fake_model import FakeAnthropic

MAX_SHARE_OF_NAIVE = 0.40
MIN_STABLE_SHARE = 0.95


def run_session(server: FakeAnthropic, workspace: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_AUTH_TOKEN"}
    env.update(
        ANTHROPIC_BASE_URL=server.base_url,
        ANTHROPIC_API_KEY="sk-bench-" + "k" * 32,
        HOME=str(workspace / "home"),
        PYTHONPATH=str(REPO),
        AGENT_NO_SERVER="1",  # in-process, and no warm process left behind by a benchmark
    )
    (workspace / "home").mkdir()
    subprocess.run(
        [sys.executable, "-m", "agent_cli", "run", "-q", "-p", "go", "-w", str(workspace)],
        env=env,
        stdout=subprocess.DEVNULL,
        check=True,
    )


def main() -> int:
    as_json = "--json" in sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropic() as server:
        workspace = Path(tmp)
        make_workspace(workspace)
        summaries = script_session(server)
        run_session(server, workspace)
        if server.violations:
            print("invalid requests:", *server.violations, sep="\n  ")
            return 1
        f = figures(main_bodies(server))
    share, stable = f.share_of_naive, f.stable_share
    if not as_json:
        print(
            f"context pipeline: {ROUNDS} rounds, each reading a different {FILE_BYTES:,}-byte file"
        )
        print(f"  model window (settings): {WINDOW:,} tokens; summariser calls: {summaries.served}")
        print(f"  total characters sent: {f.total_chars:,} vs naive append-only {f.naive_chars:,}")
    rows = [
        Figure.of(
            "compaction: total sent vs naive",
            [share * 100],
            "%",
            f"{f.total_chars:,} vs {f.naive_chars:,} chars (target ≤ {MAX_SHARE_OF_NAIVE:.0%})",
            share <= MAX_SHARE_OF_NAIVE,
        ),
        Figure.of(
            "compaction: largest request",
            [float(f.largest_chars)],
            "chars",
            f"~{f.largest_tokens:,} tokens",
        ),
        Figure.of(
            "compaction: cache-stable requests",
            [stable * 100],
            "%",
            f"{f.stable}/{f.requests - 1} (target ≥ {MIN_STABLE_SHARE:.0%})",
            stable >= MIN_STABLE_SHARE,
        ),
    ]
    return report(rows, as_json)


if __name__ == "__main__":
    sys.exit(main())
