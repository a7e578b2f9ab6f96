"""How much of the workers' processes stays out of the parent's context (SPEC §7).

    python bench/subagent_context.py

A scripted three-worker task through the real CLI and SDK against the test model server: the
parent delegates three investigations in one round; each worker reads two source files of about
20 KB, runs a search and hands in a note. Prints, per worker and in total, the characters the
parent received (its three tool_results) against the characters of the workers' processes (their
whole conversations, as recorded in the notes' figures; the .log sizes are shown too), and the
saving. Exits 1 when the saving is under 95 %.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import REPO, Figure, report

from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import first_user_contains, system_contains

TARGET = 0.95
SUBAGENT = system_contains("You are a subagent")
WORKERS = {
    "auth": "Find where login can dereference a missing session.",
    "signup": "Check whether signup validates password strength.",
    "payment": "Check how payment callbacks verify signatures.",
}


def write_module(path: Path, topic: str) -> None:
    """About 20 KB of plausible Python."""
    lines = []
    for n in range(320):
        lines.append(f"def {topic}_step_{n}(request, session):")
        lines.append(f"    value = session.get('{topic}_{n}')  # step {n} of the {topic} flow")
        lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines)[:20_000] + "\n")


def script_worker(server: FakeAnthropic, name: str) -> None:
    route = server.route(lambda b: SUBAGENT(b) and first_user_contains(WORKERS[name])(b))
    route.tool_uses(
        ("read_file", {"path": f"src/{name}/core.py"}),
        ("read_file", {"path": f"src/{name}/helpers.py"}),
        text=f"Reading the {name} module first.",
    )
    route.tool_use("bash", command=f"grep -n 'session.get' src/{name}/core.py | head -50")
    route.tool_use(
        "submit_note",
        conclusion=f"{name}: session.get() results are used unchecked in core.py step 47.",
        evidence=[f"src/{name}/core.py:140 uses the value unchecked", "320 call sites of get()"],
        file_refs=[f"src/{name}/core.py"],
        open_issues=[f"helpers.py of {name} not traced to callers"],
        confidence="medium",
    )


def run(workspace: Path, server: FakeAnthropic) -> list[dict[str, Any]]:
    for name in WORKERS:
        write_module(workspace / "src" / name / "core.py", name)
        write_module(workspace / "src" / name / "helpers.py", f"{name}_helper")
        script_worker(server, name)
    server.script.tool_uses(
        *(("task", {"description": f"inspect {n}", "prompt": p}) for n, p in WORKERS.items())
    )
    server.script.text("Summary: three modules use session.get() unchecked.")
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "ANTHROPIC_BASE_URL": server.base_url,
        "ANTHROPIC_API_KEY": "sk-test-" + "k" * 32,
        "HOME": str(workspace),
        "AGENT_NO_SERVER": "1",  # in-process, and no warm process left behind by a benchmark
    }
    env.pop("ANTHROPIC_AUTH_TOKEN", None)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_cli",
            "run",
            "-q",
            "--permission-mode",
            "bypass",
            "-p",
            "Assess the three modules.",
        ],
        cwd=workspace,
        env={**env, "AGENT_STATE_DIR": str(workspace)},
        check=True,
        stdout=subprocess.DEVNULL,
    )
    final = [b for b in server.bodies() if not SUBAGENT(b)][-1]
    return [b for b in final["messages"][-1]["content"] if b["type"] == "tool_result"]


def main() -> int:
    as_json = "--json" in sys.argv[1:]
    out = sys.stderr if as_json else sys.stdout
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropic() as server:
        workspace = Path(tmp)
        results = run(workspace, server)
        notes = {
            n["parent_tool_use_id"]: n
            for n in (json.loads(p.read_text()) for p in (workspace / "notes").glob("*.json"))
        }
        received = process = logs = 0
        print(
            f"{'worker':<16} {'parent received':>16} {'worker process':>15} {'log':>9} saving",
            file=out,
        )
        for result in results:
            note = notes[result["tool_use_id"]]
            got, spent = len(result["content"]), note["figures"]["process_chars"]
            log_size = len((workspace / note["log_path"]).read_text())
            received, process, logs = received + got, process + spent, logs + log_size
            print(
                f"{note['description']:<16} {got:>16,} {spent:>15,} {log_size:>9,} "
                f"{1 - got / spent:.1%}",
                file=out,
            )
    saving = 1 - received / process
    print(f"{'total':<16} {received:>16,} {process:>15,} {logs:>9,} {saving:.1%}", file=out)
    figure = Figure.of(
        "subagent context saving",
        [saving * 100],
        "%",
        f"parent got {received:,} of {process:,} chars (target ≥ {TARGET:.0%})",
        saving >= TARGET,
    )
    return report([figure], as_json)


if __name__ == "__main__":
    raise SystemExit(main())
