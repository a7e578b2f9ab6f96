"""Issue 40 item 1: the warm process serves a client only in its own kernel context. A run
inside `bwrap --unshare-net` or `unshare -n` (whose model server listens in the sandbox's own
network, on the port the outside one has) and a run under a lower `prlimit` go in-process
while a warm process serves outside; the same client outside is served warm."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.e2e.helpers import REPO
from tests.e2e.warm import Warm, short_dir, warm_env
from tests.fake_model import FakeAnthropic

# inside the sandbox: a fake model server of its own on the outside one's port, then the run
INSIDE = (
    "import subprocess, sys\n"
    "from tests.fake_model import FakeAnthropic\n"
    "with FakeAnthropic(port=int(sys.argv[1])) as fake:\n"
    "    fake.script.text('answered inside')\n"
    "    proc = subprocess.run([sys.executable, '-m', 'agent_cli', *sys.argv[2:]])\n"
    "sys.exit(proc.returncode)\n"
)


def _port(fake: FakeAnthropic) -> str:
    return str(urlsplit(fake.base_url).port)


def _agent(env: dict[str, str], ws: Path, wrapper: list[str], *args: str) -> str:
    proc = subprocess.run(
        [*wrapper, sys.executable, "-m", "agent_cli", *args], cwd=ws,
        env={**env, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stdout


def _inside(env: dict[str, str], ws: Path, wrapper: list[str], port: str) -> str:
    proc = subprocess.run(
        [*wrapper, sys.executable, "-c", INSIDE, port, "run", "-p", "where?"], cwd=ws,
        env={**env, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stdout


def _bwrap(tmp: Path) -> list[str]:
    return ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--bind", str(tmp), str(tmp), "--unshare-net", "--"]  # fmt: skip


UNSHARE = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("sandbox", ["bwrap", "unshare"])
def test_a_sandboxed_run_is_served_in_process_and_the_same_outside_warm(
    fake_model: FakeAnthropic, fake_env: dict[str, str], warm: Warm, tmp_path: Path, sandbox: str
):
    if shutil.which(sandbox) is None:
        pytest.skip(f"{sandbox} is not installed")
    warm.start()
    env = warm_env(fake_env, warm.runtime_dir)
    ws = tmp_path / "ws"
    ws.mkdir()
    fake_model.script.text("answered outside").text("answered outside")
    assert _agent(env, ws, [], "run", "-p", "where?") == "answered outside\n"
    assert warm.served() == 1
    wrapper = _bwrap(tmp_path) if sandbox == "bwrap" else UNSHARE
    assert _inside(env, ws, wrapper, _port(fake_model)) == "answered inside\n"
    assert warm.served() == 1  # refused: it ran where its client runs
    status = warm.status()
    assert status is not None
    assert "ns/" in status["last_refused"]
    assert "client refused" in warm.log()
    shown = _agent(env, ws, [], "server", "status")
    assert "last client refused (it ran in-process)" in shown
    assert _agent(env, ws, [], "run", "-p", "where?") == "answered outside\n"  # outside: warm
    assert warm.served() == 2
    assert len(fake_model.bodies()) == 2


@pytest.mark.timeout(300)
def test_a_run_under_a_lower_prlimit_keeps_its_limit(
    fake_model: FakeAnthropic, fake_env: dict[str, str], warm: Warm, tmp_path: Path
):
    warm.start()
    env = warm_env(fake_env, warm.runtime_dir)
    argv = ("run", "-p", "limits?", "--permission-mode", "bypass", "--output-format", "json")
    for _ in range(2):
        fake_model.script.tool_use("bash", command="ulimit -n").text("ok")
    _agent(env, tmp_path, ["prlimit", "--nofile=777:777", "--"], *argv)
    assert warm.served() == 0
    result = fake_model.bodies()[1]["messages"][-1]["content"][0]
    assert "777" in json.dumps(result["content"])  # its tool ran under its own limit
    assert "limits differ (Max open files)" in warm.status()["last_refused"]  # type: ignore[index]
    _agent(env, tmp_path, [], *argv)
    assert warm.served() == 1
    assert "777" not in json.dumps(fake_model.bodies()[3]["messages"][-1]["content"][0])


def test_a_read_only_runtime_directory_means_in_process_quietly(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    runtime = short_dir()
    try:
        env = warm_env(fake_env, runtime)
        fake_model.script.text("fine").text("fine")
        for folder in (runtime, runtime / "agent"):  # none yet, then one the sandbox cannot write
            wrapper = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                       "--bind", str(tmp_path), str(tmp_path), "--"]  # fmt: skip
            assert _agent(env, tmp_path, wrapper, "run", "-p", "hi") == "fine\n"
            folder.joinpath("agent").mkdir(mode=0o700, exist_ok=True)
    finally:
        shutil.rmtree(runtime, ignore_errors=True)
