"""Reliability soak: crashes, API faults and malformed tool calls. Writes docs/reliability.md.

    python bench/soak.py [--seed N] [--kills 20] [--sessions 20] [--malformed 500] [--parts d]

(a) SIGKILL the agent at random moments of a scripted multi-round session (while a reply
    streams, while a tool runs, around transcript writes), then `agent run --continue`: count
    resumes whose first request is valid (SPEC §16, checked by the server) and that still hold
    every tool result the killed run had completed.
(b) A fault mix (529, 429 with retry-after, 500, a stream dropped mid-reply) on ~30% of requests
    over scripted sessions whose tools append a unique line to a file: count sessions completed
    and side effects run other than exactly once.
(c) Malformed tool calls in one session (wrong types, missing fields, unknown tools, string-encoded
    lists, eval bait): count crashes and state changes (workspace files, todo list).
(d) SIGKILL in a command's first 100 ms, in-process and warm (bench/command_kills.py).
(e) Streams silent before their first event and inside a tool call, and 429s asking
    `retry-after: 20` (bench/soak_stalls.py): sessions completed, side effects once, waits as asked.
Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from command_kills import rows as command_kill_rows
from common import AGENT, REPO, agent_env, run_agent
from soak_stalls import stall_rows

from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import has_tools
from tests.fake_model.script import Script

MODE = ("--permission-mode", "bypass")


# ---------------------------------------------------------------- (a) kills
def _kill_session(script: Script, ws: Path, rounds: int) -> None:
    for i in range(rounds):
        (ws / f"f{i}.txt").write_text(f"content {i}\n" * 20)
        script.tool_uses(
            ("read_file", {"path": f"f{i}.txt"}),
            ("bash", {"command": f"sleep 0.05; echo {i} >> effects.txt"}),
            delay=0.03,
        )
        script.text(f"thinking about step {i} " * 5, stop_reason="max_tokens", delay=0.02)
    script.text("finished")


def _completed_results(transcript: Path) -> dict[str, str]:
    done: dict[str, str] = {}
    for line in transcript.read_text(errors="replace").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("type") != "message":
            continue
        for block in record["message"].get("content", []):
            if block.get("type") == "tool_result" and not block.get("is_error"):
                done[block["tool_use_id"]] = block["content"]
    return done


def _sent_results(body: dict[str, Any]) -> dict[str, str]:
    return {
        b["tool_use_id"]: b["content"]
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    }


def kill_trial(rng: random.Random) -> tuple[bool, bool]:
    with FakeAnthropic() as server, tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        env = agent_env(server.base_url, tmp)
        _kill_session(server.script, ws, rounds=8)
        proc = subprocess.Popen(
            [*AGENT, "run", "-q", "-p", "work through the files", *MODE],
            cwd=ws,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(1.0, 3.0))  # start-up is ~1.5 s: most kills land mid-session
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        transcripts = list((ws / ".transcripts").glob("*.jsonl"))
        if not transcripts:
            return True, True  # killed before the session existed: nothing to lose
        completed = _completed_results(transcripts[0])
        before = len(server.requests)
        resume = Script().text("resumed")
        server.route(lambda body: "go on" in json.dumps(body["messages"][-1]), resume)
        out = run_agent(env, ws, "run", "-q", "--continue", "-p", "go on", *MODE)
        valid = out.returncode == 0 and not server.violations
        bodies = [r.body for r in server.requests[before:]]
        sent = _sent_results(bodies[0]) if bodies else {}
        kept = all(sent.get(i) == c for i, c in completed.items())
        return valid, kept


# ---------------------------------------------------------------- (b) faults
def _fault(script: Script, rng: random.Random, real: Callable[..., Script]) -> None:
    """Maybe put a fault before the real step; a dropped stream needs the step twice."""
    if rng.random() >= 0.3:
        real()
        return
    kind = rng.choice(["529", "429", "500", "drop"])
    if kind == "drop":
        real(drop_after=4)
        real()
    elif kind == "429":
        script.error(429, retry_after=0.05)
        real()
    else:
        script.error(int(kind))
        real()


def fault_session(n: int, rng: random.Random) -> tuple[bool, int]:
    with FakeAnthropic() as server, tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        script = server.script
        lines = [f"s{n}-r{i}" for i in range(6)]
        for line in lines:
            command = f"echo {line} >> effects.txt"
            _fault(script, rng, lambda c=command, **kw: script.tool_use("bash", command=c, **kw))
        _fault(script, rng, lambda **kw: script.text("all done", **kw))
        out = run_agent(agent_env(server.base_url, tmp), ws, "run", "-q", "-p", "go", *MODE)
        effects = (ws / "effects.txt").read_text().split() if (ws / "effects.txt").exists() else []
        wrong = sum(1 for line in lines if effects.count(line) != 1)
        return out.returncode == 0 and not server.violations, wrong


# ---------------------------------------------------------------- (c) malformed calls
BAIT = "__import__('os').system('touch PWNED')"


def malformed_calls(rng: random.Random, count: int) -> list[tuple[str, Any]]:
    makers: list[Callable[[], tuple[str, Any]]] = [
        lambda: ("read_file", {"path": rng.choice([1, None, ["a"], {"p": 1}])}),
        lambda: ("read_file", {}),
        lambda: ("read_file", {"path": "a.txt", "offset": rng.choice(["x", -3, 0, [1]])}),
        lambda: ("write_file", {"path": "new.txt"}),
        lambda: ("write_file", {"content": "x"}),
        lambda: ("write_file", {"path": "n.txt", "content": 5}),
        lambda: ("edit_file", {"path": "a.txt", "old_string": "zzz-not-there", "new_string": "y"}),
        lambda: ("edit_file", {"path": "a.txt", "old_string": 3, "new_string": "y"}),
        lambda: ("bash", {"command": rng.choice([None, 7, ["ls"], ""])}),
        lambda: ("bash", {"command": "echo hi > x.txt", "timeout_s": "soon"}),
        lambda: ("bash", {"cmd": "touch PWNED"}),
        lambda: ("glob", {"pattern": ["*.py"]}),
        lambda: ("grep", {"pattern": "x", "output_mode": "everything"}),
        lambda: ("todo_write", {"todos": BAIT}),
        lambda: ("todo_write", {"todos": "[{'content': 'x', 'status': 'done'}]"}),
        lambda: ("todo_write", {"todos": '[{"content": "", "status": "pending"}]'}),
        lambda: ("todo_write", {"todos": "not a list at all"}),
        lambda: ("todo_write", {"todos": [{"content": "a", "status": "in_progress"}] * 2}),
        lambda: ("task", {"description": "x"}),
        lambda: ("compact", {"focus": 12}),
        lambda: (rng.choice(["eval", "exec", "rm", "read-file", "Bash"]), {"command": BAIT}),
    ]
    return [rng.choice(makers)() for _ in range(count)]


def _tree_digest(ws: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(ws.rglob("*")):
        rel = p.relative_to(ws)
        if rel.parts[0] in (".transcripts", "logs", "notes", ".agent") or not p.is_file():
            continue
        h.update(str(rel).encode() + p.read_bytes())
    return h.hexdigest()


def malformed_soak(rng: random.Random, count: int) -> tuple[int, int, int]:
    """Returns (crashes, state changes, calls answered with a non-error result)."""
    with FakeAnthropic() as server, tempfile.TemporaryDirectory() as tmp:
        # a session this long writes an episode (SPEC §10): that tool-less call gets its own script
        server.route(has_tools(False)).respond(lambda body: "no episode", times=100)
        ws = Path(tmp)
        (ws / "a.txt").write_text("alpha\n")
        calls = malformed_calls(rng, count)
        for start in range(0, count, 10):
            server.script.reply(
                [{"type": "tool_use", "name": n, "input": i} for n, i in calls[start : start + 10]]
            )
        server.script.text("survived")
        digest = _tree_digest(ws)
        out = run_agent(agent_env(server.base_url, tmp), ws, "run", "-q", "-p", "fuzz", *MODE)
        crashes = int(out.returncode != 0 or "Traceback" in out.stderr)
        changes = int(_tree_digest(ws) != digest) + int((ws / "PWNED").exists())
        transcript = next((ws / ".transcripts").glob("*.jsonl")).read_text()
        changes += int('"type":"todos"' in transcript.replace(" ", ""))
        results: dict[str, bool] = {}
        for body in server.bodies():
            for m in body["messages"]:
                for b in m["content"] if isinstance(m["content"], list) else []:
                    if b.get("type") == "tool_result":
                        results[b["tool_use_id"]] = bool(b.get("is_error"))
        non_errors = sum(1 for is_error in results.values() if not is_error)
        missing = count - len(results)  # a call that never got a result counts as a crash
        return crashes + len(server.violations) + missing, changes, non_errors


# ---------------------------------------------------------------- report
Row = tuple[str, str, bool]


def kill_rows(args: argparse.Namespace, rng: random.Random) -> list[Row]:
    kills = [kill_trial(rng) for _ in range(args.kills)]
    valid, kept = sum(v for v, _ in kills), sum(k for _, k in kills)
    return [
        ("(a) resumes with a valid first request", f"{valid}/{args.kills}", valid == args.kills),
        (
            "(a) resumes with every completed result kept",
            f"{kept}/{args.kills}",
            kept == args.kills,
        ),
    ]


def fault_rows(args: argparse.Namespace, rng: random.Random) -> list[Row]:
    faults = [fault_session(n, rng) for n in range(args.sessions)]
    completed = sum(ok for ok, _ in faults)
    wrong = sum(w for _, w in faults)
    return [
        (
            "(b) fault-mix sessions completed",
            f"{completed}/{args.sessions}",
            completed == args.sessions,
        ),
        ("(b) side effects run other than exactly once", str(wrong), wrong == 0),
    ]


def malformed_rows(args: argparse.Namespace, rng: random.Random) -> list[Row]:
    crashes, changes, non_errors = malformed_soak(rng, args.malformed)
    return [
        ("(c) crashes from malformed calls", str(crashes), crashes == 0),
        ("(c) state changes from malformed calls", str(changes), changes == 0),
        ("(c) malformed calls answered without an error", str(non_errors), non_errors == 0),
    ]


PARTS: dict[str, Callable[[argparse.Namespace, random.Random], list[Row]]] = {
    "a": kill_rows,
    "b": fault_rows,
    "c": malformed_rows,
    "d": lambda args, rng: command_kill_rows(args.command_kills, rng),
    "e": lambda args, rng: stall_rows(args.sessions, rng),
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--malformed", type=int, default=500)
    parser.add_argument("--command-kills", type=int, default=100)
    parser.add_argument("--parts", default="abcde", help="which parts to run, e.g. d")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.monotonic()
    rows = [row for part in "abcde" if part in args.parts for row in PARTS[part](args, rng)]
    elapsed = time.monotonic() - started
    for name, value, ok in rows:
        print(f"{name:<72} {value:>8}  {'ok' if ok else 'MISSED'}")
    if args.parts == "abcde":  # the doc holds the whole soak
        write_doc(rows, args, elapsed)
    return 0 if all(ok for *_, ok in rows) else 1


def write_doc(rows: list[Row], args: argparse.Namespace, elapsed: float) -> None:
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Reliability soak",
        "",
        f"`python bench/soak.py --seed {args.seed}` on {stamp}, {elapsed:.0f} s.",
        "",
        "| check | result | target met |",
        "|---|---|---|",
        *[f"| {name} | {value} | {'yes' if ok else 'NO'} |" for name, value, ok in rows],
        "",
    ]
    (REPO / "docs").mkdir(exist_ok=True)
    (REPO / "docs" / "reliability.md").write_text("\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(main())
