"""What the context pipeline saves on a long session, measured on the requests themselves.

    python bench/context.py

Runs `agent run` against the test model server for 60 rounds, each reading a different 6 KB file
(default settings, the model's window sized down to 60,000 tokens by .agent/settings.json), and
prints: total characters sent versus a naive append-only loop, the largest request, and the share
of requests whose messages begin with all of the previous request's messages (the cached prefix
survived). Exits 1 when a target is missed: total <= 40% of naive, >= 95% cache-stable (issue 53).
"""

from __future__ import annotations

import json
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
from tests.fake_model.routing import system_contains
from tests.fake_model.usage import PromptCache

SUB = system_contains("You are a subagent")
MIN_SUBAGENT_READ = 0.70

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


def subagent_share() -> tuple[int, int]:
    """A session whose agent starts 3 subagents, each reading 4 files: the subagents' cache-read
    tokens and all their input tokens, replayed through the fake server's cache in arrival order."""
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropic() as server:
        workspace = Path(tmp)
        make_workspace(workspace)
        for n in range(3):
            server.script.tool_use("task", description=f"look {n}", prompt=f"Read part {n}.")
            child = server.route(lambda b, n=n: SUB(b) and f"Read part {n}." in json.dumps(b))
            for i in range(4):
                child.tool_use("read_file", path=f"f{n * 4 + i:02d}.txt")
            child.tool_use("submit_note", conclusion="no kiwi", confidence="high")
        server.script.text("done")
        run_session(server, workspace)
        cache, read, total = PromptCache(), 0, 0
        for body in server.bodies():
            usage = cache.usage_for(body)
            if SUB(body):
                read += usage["cache_read_input_tokens"]
                total += sum(usage.values())
    return read, total


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
    read, total = subagent_share()
    rows.append(
        Figure.of(
            "cache: 3 subagents' reads / input",
            [read / max(1, total) * 100],
            "%",
            f"{read:,} of {total:,} tokens (target ≥ {MIN_SUBAGENT_READ:.0%}; reported)",
        )
    )
    return report(rows, as_json)


if __name__ == "__main__":
    sys.exit(main())
