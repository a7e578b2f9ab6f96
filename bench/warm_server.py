"""A warm process of a benchmark's own, and one timed launch against the test model server:
shared by bench/warm_figures.py, bench/warm_fresh.py and bench/command_kills.py."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import AGENT


def launch(server: Any, cmd: list[str], env: dict[str, str], ws: str) -> tuple[float, float, float]:
    """(launch -> first request, last request -> exit, wall) of one process."""
    seen = len(server.requests)
    start = time.monotonic()
    proc = subprocess.Popen(
        cmd, cwd=ws, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    proc.wait()
    end = time.monotonic()
    if proc.returncode != 0 or len(server.requests) == seen:
        raise RuntimeError(f"{cmd[:4]} failed: exit {proc.returncode}")
    first, last = server.requests[seen].time, server.requests[-1].time
    return first - start, end - last, end - start


class WarmServer:
    """A warm process of the benchmark's own, in a private runtime directory."""

    def __init__(self, env: dict[str, str]) -> None:
        self.runtime = Path(tempfile.mkdtemp(prefix="agent-bench-", dir="/tmp"))
        self.runtime.chmod(0o700)
        base = {k: v for k, v in env.items() if k not in ("AGENT_NO_SERVER", "CI")}
        self.env = {**base, "AGENT_SERVER": "1", "XDG_RUNTIME_DIR": str(self.runtime)}

    def start(self) -> None:
        code = (
            "from agent_cli.cli.warm.client import start_server\n"
            "from agent_cli.cli.warm.place import private_dir, version_key\n"
            "start_server(private_dir(), version_key(), 600)\n"
        )
        subprocess.run([sys.executable, "-c", code], env=self.env, check=True)
        deadline = time.monotonic() + 120
        while self.status() is None:
            if time.monotonic() > deadline:
                raise RuntimeError("the warm process did not start")
            time.sleep(0.05)

    def ask(self, op: str) -> dict[str, Any] | None:
        out = subprocess.run(
            [*AGENT, "server", op, *(["--json"] if op == "status" else [])],
            env=self.env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        return json.loads(out.stdout) if op == "status" and out.stdout.startswith("{") else None

    def status(self) -> dict[str, Any] | None:
        return self.ask("status")

    def stop(self) -> None:
        self.ask("stop")
        shutil.rmtree(self.runtime, ignore_errors=True)
