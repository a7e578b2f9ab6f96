"""What `agent chat` writes to the terminal while a long reply streams, before and after a change.

    python bench/terminal.py [--seconds 30] [--before main] [--runs 1] [--json]

Runs the real `agent chat` in a 140x45 pseudo-terminal against the fake server, with a plan of
12 todos and a markdown reply streamed over `--seconds`, once with this tree and once with the
tree of git ref `--before` (exported to a temporary directory, nothing checked out). Prints, for
each: bytes written to the terminal per byte of streamed reply, full redraws per second (erase
of the bottom region: `ESC [ J`) and synchronized-output frames per second (`ESC [ ? 2026 h`).
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import pexpect
from common import REPO, Figure, agent_env, report

from tests.fake_model import FakeAnthropic

COLUMNS, ROWS = 140, 45
CHUNKS_PER_S = 20
TODOS = [
    {
        "content": f"Step {n:02d}",
        "status": "in_progress" if n == 3 else "pending",
        "active_form": f"Doing step {n:02d}",
    }
    for n in range(1, 13)
]


def reply_text(lines: int) -> str:
    blocks = []
    for block in range(lines // 5):
        body = [
            f"- point {5 * block + n} of the answer, with some `code` and **bold** words"
            for n in range(4)
        ]
        blocks.append(f"### Part {block}\n\n" + "\n".join(body))
    return "\n\n".join(blocks) + "\n\nEND-OF-REPLY"


def export_tree(ref: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", ref], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def one_run(tree: Path, seconds: float) -> dict[str, float]:
    text = reply_text(240)
    with tempfile.TemporaryDirectory() as workspace, FakeAnthropic() as server:
        server.script.tool_use("todo_write", todos=TODOS)
        chunks = int(seconds * CHUNKS_PER_S)
        server.script.text(text, chunks=chunks, pace=1 / CHUNKS_PER_S)
        env = agent_env(server.base_url, workspace)
        env.pop("NO_COLOR", None)
        env.update(PYTHONPATH=str(tree), TERM="xterm-256color")
        child = pexpect.spawn(
            sys.executable,
            ["-m", "agent_cli", "chat", "--permission-mode", "bypass"],
            cwd=workspace,
            env=env,
            dimensions=(ROWS, COLUMNS),
        )
        terminal = Answering(child)
        child.expect("you>", timeout=60)
        terminal.answer(child.before + child.after)
        child.send(b"explain it all\r")
        while len(server.requests) < 2:  # the streamed reply is the second request
            terminal.read()
        start, raw = time.monotonic(), b""
        while b"END-OF-REPLY" not in raw:
            raw += terminal.read()
        elapsed = time.monotonic() - start
        child.close(force=True)
    return {
        "bytes per reply byte": len(raw) / len(text.encode()),
        "full redraws / s": raw.count(b"\x1b[J") / elapsed,
        "synchronized frames / s": raw.count(b"\x1b[?2026h") / elapsed,
        "reply seconds": elapsed,
    }


class Answering:
    """The pseudo-terminal's reader, answering cursor position questions as a terminal does
    (the screen's width probes among them): the cursor on the last row, at the last column."""

    def __init__(self, child: pexpect.spawn) -> None:  # type: ignore[type-arg]
        self.child, self.tail = child, b""

    def read(self) -> bytes:
        try:
            data = bytes(self.child.read_nonblocking(65536, timeout=0.05))
        except pexpect.TIMEOUT:
            return b""
        self.answer(data)
        return data

    def answer(self, data: bytes) -> None:
        seen = self.tail + data  # a question split between two reads is still one
        self.child.send(f"\x1b[{ROWS};{COLUMNS}R".encode() * seen.count(b"\x1b[6n"))
        self.tail = seen[-3:] if not seen.endswith(b"\x1b[6n") else b""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--before", default="main")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows: list[Figure] = []
    with tempfile.TemporaryDirectory() as old:
        trees = {args.before: export_tree(args.before, Path(old)), "this tree": REPO}
        results: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        for _ in range(args.runs):  # interleaved, so load drift hits both alike
            for name, tree in trees.items():
                results[name].append(one_run(tree, args.seconds))
    for name, runs in results.items():
        for figure in runs[0]:
            unit = "s" if figure == "reply seconds" else ""
            rows.append(Figure.of(f"{name}: {figure}", [r[figure] for r in runs], unit))
    return report(rows, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
