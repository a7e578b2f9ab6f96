"""The warm process in tests: started explicitly (CI sets CI, and tests/conftest.py sets
AGENT_NO_SERVER, so nothing starts one unasked), in a private directory of the test's own,
stopped afterwards. `Via` runs `agent` one way or the other and checks which way it went."""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from agent_cli.cli.warm.client import connect
from agent_cli.cli.warm.place import LOG, SOCKET
from agent_cli.cli.warm.wire import Lines, send_request
from tests.e2e.helpers import REPO, run_agent
from tests.waiting import wait_until

START = (
    "from agent_cli.cli.warm.client import start_server\n"
    "from agent_cli.cli.warm.place import private_dir, version_key\n"
    "start_server(private_dir(), version_key(), 600)\n"
)


def warm_env(env: dict[str, str], runtime_dir: Path) -> dict[str, str]:
    """`env` opted into the warm process living under `runtime_dir`."""
    opted = {k: v for k, v in env.items() if k not in ("AGENT_NO_SERVER", "CI")}
    return {**opted, "AGENT_SERVER": "1", "XDG_RUNTIME_DIR": str(runtime_dir)}


def short_dir() -> Path:
    """A runtime directory with a short path: a socket's path has at most 107 bytes."""
    folder = Path(tempfile.mkdtemp(prefix="agent-rt-", dir="/tmp"))
    folder.chmod(0o700)
    return folder


class Warm:
    def __init__(self, env: dict[str, str]) -> None:
        self.runtime_dir = short_dir()
        self.env = warm_env({**env, "PYTHONPATH": str(REPO)}, self.runtime_dir)
        self.folder = self.runtime_dir / "agent"

    def start(self, wait: bool = True) -> None:
        subprocess.run([sys.executable, "-c", START], env=self.env, check=True, timeout=30)
        if wait:
            self.wait_serving()

    def wait_serving(self, timeout: float = 60) -> None:
        wait_until(lambda: self.status() is not None, timeout, "the warm process serving")

    def ask(self, op: str) -> dict[str, Any] | None:
        try:
            sock = connect(str(self.folder / SOCKET))
        except OSError:
            return None
        if sock is None:
            return None
        with sock:
            send_request(sock, {"op": op}, [])
            return Lines(sock).next()

    def status(self) -> dict[str, Any] | None:
        return self.ask("status")

    def served(self) -> int:
        status = self.status()
        return int(status["served"]) if status else -1

    def server_pids(self) -> list[int]:
        """Every process running this runtime directory's warm process."""
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    cmdline = (entry / "cmdline").read_bytes().split(b"\0")
                except OSError:
                    continue
                if b"agent_cli.cli.warm.server" in cmdline and str(self.folder).encode() in cmdline:
                    pids.append(int(entry.name))
        return pids

    def log(self) -> str:
        path = self.folder / LOG
        return path.read_text() if path.exists() else ""

    def stop(self) -> None:
        if self.ask("stop") is None:  # still warming up (or never started): no socket to ask
            for pid in self.server_pids():
                os.kill(pid, signal.SIGTERM)
        for pid in self.server_pids():
            try:
                wait_until(functools.partial(_gone, pid), 10, "the warm process to exit")
            except AssertionError:
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.runtime_dir, ignore_errors=True)


def _gone(pid: int) -> bool:
    return not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


class Via:
    """`agent` run in-process, or through the warm process (and it is checked that it did)."""

    def __init__(self, mode: str, env: dict[str, str], warm: Warm | None) -> None:
        self.mode, self.warm, self.before = mode, warm, 0
        self.env = warm_env(env, warm.runtime_dir) if warm else env

    def run(
        self, workspace: Path, *args: str, stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        before = self.warm.served() if self.warm else 0
        proc = run_agent(self.env, workspace, *args, stdin=stdin)
        if self.warm is not None:
            assert self.warm.served() == before + 1, "the run did not go through the warm process"
        return proc

    def popen(self, workspace: Path, *args: str, **kwargs: Any) -> subprocess.Popen[str]:
        """Started, not waited for: `went_its_way()` checks the way once it ended."""
        self.before = self.warm.served() if self.warm else 0
        env = {**self.env, "PYTHONPATH": str(REPO)}
        return subprocess.Popen(
            [sys.executable, "-m", "agent_cli", *args], cwd=workspace, env=env, text=True,
            **kwargs,
        )  # fmt: skip

    def went_its_way(self) -> None:
        if self.warm is not None:
            assert self.warm.served() == self.before + 1, "the run did not go through it"
