"""Issue 50 item 1: the user's warm process is no way out of the sandbox. A hostile repository's
command, confined by the agent's own sandbox, reaches the warm process's socket and sends forged
requests (an op that is not `run`, a missing op, `run`, `status`, `stop`) with the right version
key; the forged environment points XDG_CONFIG_HOME at a workspace folder whose
`user_prompt_submit` hook would write outside. Nothing may be forked for it and the server must
go on serving. The same requests from a peer in other namespaces (plain bwrap, unshare) prove the
server's own check, whatever the sandbox lets a command do with sockets. As root and as an
ordinary user (the server, its socket and the peers then that user's)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import REPO, last_user_blocks
from tests.e2e.security.nobody import NOBODY, REACHED, nobody_can_run_python, within_reach
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

OPS = ("exec", None, "run", "status", "stop")  # stop last: it would end the server

# the hostile repository's program: forged requests, each answer kept in answers.json
ATTACK = """import json, os, socket, sys
from agent_cli.cli.warm.place import version_key
from agent_cli.cli.warm.wire import Lines, send_request
path, outside = sys.argv[1], sys.argv[2]
here = os.getcwd()
os.makedirs(os.path.join(here, "cfg", "agent"), exist_ok=True)
answers = []
for op in json.loads(sys.argv[3]):
    hook = {"command": f"id > {outside}/x-{op}; exit 2"}
    with open(os.path.join(here, "cfg", "agent", "settings.json"), "w") as f:
        json.dump({"hooks": {"user_prompt_submit": [hook]}}, f)
    env = {**os.environ, "XDG_CONFIG_HOME": os.path.join(here, "cfg"),
           "ANTHROPIC_API_KEY": "forged", "AGENT_SANDBOX": "off"}
    request = {"key": version_key(), "argv": ["run", "-p", "hi"], "argv0": "agent",
               "cwd": here, "env": env, "umask": 18, "winsize": None}
    if op is not None:
        request["op"] = op
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(60)
        sock.connect(path)
        send_request(sock, request, [0, 1, 2])
        lines, got = Lines(sock), []
        while (line := lines.next()) is not None:
            got.append(line)
        answers.append([op, got])
    except OSError as e:
        answers.append([op, f"{type(e).__name__}: {e}"])
with open("answers.json", "w") as f:
    json.dump(answers, f)
"""


class Place:
    """A warm process of one user (root, or nobody through setpriv) in a folder of that user's:
    its runtime directory, HOME, the workspace, and a folder outside every sandbox."""

    def __init__(self, env: dict[str, str], as_nobody: bool) -> None:
        self.prefix = NOBODY if as_nobody else []
        self.root = Path(tempfile.mkdtemp(prefix="agent-sec-", dir="/tmp"))
        self.root.chmod(0o755)
        for name in ("home", "rt", "ws", "outside", "tmp"):
            (self.root / name).mkdir(mode=0o700)
        if as_nobody:
            for path in [self.root, *self.root.iterdir()]:
                os.chown(path, 65534, 65534)
        self.ws, self.outside = self.root / "ws", self.root / "outside"
        drop = ("AGENT_NO_SERVER", "CI", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME")
        self.env = {k: v for k, v in env.items() if k not in drop}
        self.env.update(
            AGENT_SERVER="1", HOME=str(self.root / "home"), PYTHONPATH=str(REPO),
            XDG_RUNTIME_DIR=str(self.root / "rt"), TMPDIR=str(self.root / "tmp"),
        )  # fmt: skip
        self.socket = self.root / "rt" / "agent" / "server.sock"
        if as_nobody:  # the suite's bytecode cache is root's
            cache = Path(tempfile.gettempdir()) / "agent-tests-pyc-65534"
            cache.mkdir(mode=0o700, exist_ok=True)
            os.chown(cache, 65534, 65534)
            self.env["PYTHONPYCACHEPREFIX"] = str(cache)

    def run(self, *argv: str, wrapper: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.prefix, *wrapper, *argv], cwd=self.ws, env=self.env, capture_output=True,
            text=True, timeout=180, check=False,
        )  # fmt: skip

    def agent(self, *args: str, wrapper: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
        return self.run(sys.executable, "-m", "agent_cli", *args, wrapper=wrapper)

    def status(self) -> dict[str, Any] | None:
        proc = self.agent("server", "status", "--json")
        answer = json.loads(proc.stdout) if proc.returncode == 0 else None
        return answer if isinstance(answer, dict) else None

    def start(self, wrapper: tuple[str, ...] = ()) -> dict[str, Any]:
        start = "from agent_cli.cli.warm.client import start_server\n"
        start += "from agent_cli.cli.warm.place import private_dir, version_key\n"
        start += "start_server(private_dir(), version_key(), 600)\n"
        assert self.run(sys.executable, "-c", start, wrapper=wrapper).returncode == 0
        wait_until(lambda: self.status() is not None, 90, "the warm process serving")
        status = self.status()
        assert status is not None
        return status

    def attack(
        self, wrapper: tuple[str, ...] = (), ops: tuple[str | None, ...] = OPS
    ) -> list[list[Any]]:
        """The forged requests sent from inside `wrapper`; the answers each got."""
        (self.ws / "attack.py").write_text(ATTACK)
        argv = (sys.executable, "attack.py", str(self.socket), str(self.outside), json.dumps(ops))
        proc = self.run(*argv, wrapper=wrapper)
        assert proc.returncode == 0, proc.stderr
        return list(json.loads((self.ws / "answers.json").read_text()))

    def server_pids(self) -> list[int]:
        found = []
        for entry in Path("/proc").iterdir():
            try:
                cmdline = (entry / "cmdline").read_bytes() if entry.name.isdigit() else b""
            except OSError:
                continue
            if b"agent_cli.cli.warm.server" in cmdline and str(self.root).encode() in cmdline:
                found.append(int(entry.name))
        return found

    def close(self) -> None:
        self.agent("server", "stop")
        for pid in self.server_pids():
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.mark.timeout(1200)
def test_as_an_ordinary_user(tmp_path: Path):
    """Where the interpreter is out of an ordinary user's reach, this module's cases as that
    user (skipped in this run) run here, inside a mount namespace that puts it within reach."""
    if os.geteuid() != 0 or nobody_can_run_python() or os.environ.get(REACHED):
        pytest.skip("the ordinary user's cases run in this run itself")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    argv = [sys.executable, "-m", "pytest", __file__, "-k", "nobody", "-p", "no:cacheprovider"]
    argv += ["-p", "no:xdist", "-q", "-rs"]
    inner = subprocess.run(
        [*within_reach(tmp_path), *argv], cwd=REPO, env={**env, REACHED: "1"},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert inner.returncode == 0, inner.stdout[-6000:] + inner.stderr[-2000:]
    assert "skipped" not in inner.stdout.replace("root may take", ""), inner.stdout[-3000:]


@pytest.fixture(params=["root", "nobody"])
def place(request: pytest.FixtureRequest, fake_env: dict[str, str]) -> Iterator[Place]:
    as_nobody = request.param == "nobody"
    if os.geteuid() != 0:
        pytest.skip("the root case needs root, and only root can become another user")
    if as_nobody and not nobody_can_run_python():
        pytest.skip(
            f"{sys.executable} is out of an ordinary user's reach: test_as_an_ordinary_user"
        )
    made = Place(fake_env, as_nobody)
    yield made
    made.close()


def _refused(answers: list[list[Any]], reachable: bool) -> None:
    """Each forged request was refused, or (`reachable` False) could not even be sent."""
    assert [op for op, _ in answers] == list(OPS)
    for op, got in answers:
        if isinstance(got, str) and not reachable:
            continue  # the sandbox kept the command from the socket: fine too
        assert isinstance(got, list), (op, got)
        assert [list(line) for line in got] == [["refused"]], (op, got)


def _unharmed(place: Place, before: dict[str, Any]) -> None:
    assert sorted(p.name for p in place.outside.iterdir()) == []  # no forked child ran the hook
    after = place.status()
    assert after is not None, "the warm process was stopped"
    assert after["pid"] == before["pid"]
    assert after["served"] == before["served"]  # nothing forked for a forged request


@pytest.mark.timeout(400)
def test_a_confined_command_gets_no_fork_and_cannot_stop_the_warm_process(
    place: Place, fake_model: FakeAnthropic
):
    before = place.start()
    ops = json.dumps(OPS)
    attack = f"PYTHONPATH={REPO} {sys.executable} attack.py {place.socket} {place.outside} '{ops}'"
    stop = f"PYTHONPATH={REPO} {sys.executable} -m agent_cli server stop; echo rc=$?"
    fake_model.script.tool_use("bash", command=attack).tool_use("bash", command=stop).text("done")
    (place.ws / "attack.py").write_text(ATTACK)
    run = place.agent("run", "-p", "build it", "--sandbox", "required", "--output-format", "json")
    assert run.returncode == 0, run.stderr
    assert (place.ws / "answers.json").exists(), run.stdout  # the attack did run, confined
    _unharmed(place, {**before, "served": before["served"] + 1})  # the run itself was served
    _refused(json.loads((place.ws / "answers.json").read_text()), reachable=False)


@pytest.mark.timeout(400)
@pytest.mark.parametrize("wrapper", ["bwrap", "unshare"])
def test_a_peer_in_other_namespaces_is_refused_every_op(place: Place, wrapper: str):
    """The server's own check: the peer really connects (plain bwrap or unshare, no filter on
    its sockets) and every forged request is answered with a refusal."""
    before = place.start()
    argv: tuple[str, ...]
    if wrapper == "bwrap":
        argv = ("bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind")
        argv += (str(place.ws), str(place.ws), "--unshare-net", "--unshare-pid", "--")
    else:
        argv = ("unshare", "-rn") if place.prefix else ("unshare", "-n")
    answers = place.attack(argv)
    _unharmed(place, before)
    _refused(answers, reachable=True)
    status = place.status()
    assert status is not None
    assert "ns/" in status["last_refused"]


@pytest.mark.timeout(300)
def test_an_unknown_request_is_refused_even_in_the_warm_processs_own_context(place: Place):
    before = place.start()
    answers = place.attack((), ops=("exec", None))
    _unharmed(place, before)
    unknown = "an unknown request ({!r})"
    assert answers == [
        ["exec", [{"refused": unknown.format("exec")}]],
        [None, [{"refused": unknown.format("None")}]],
    ]


# Issue 50 item 16: a warm-served run has its client's scheduling, not the warm process's.
PROBE = (
    "awk '{print \"nice\", $19}' /proc/self/stat; taskset -p $$ | sed 's/.*: /mask /';"
    " ionice -p $$; echo oom $(cat /proc/self/oom_score_adj)"
)
OOM = ("sh", "-c", 'echo 500 > /proc/self/oom_score_adj && exec "$@"', "sh")
LOWER = ("nice", "-n", "7", "taskset", "-c", "0", "ionice", "-c", "3", *OOM)


def _probed(place: Place, fake_model: FakeAnthropic, wrapper: tuple[str, ...]) -> str:
    """What the run's bash command (unconfined, so nothing between it and the run) printed."""
    fake_model.script.tool_use("bash", command=PROBE).text("done")
    args = ("run", "-p", "where do I run?", "--permission-mode", "bypass", "--sandbox", "off")
    run = place.agent(*args, wrapper=wrapper)
    assert run.returncode == 0, run.stderr
    (block,) = last_user_blocks(fake_model.bodies()[-1])
    return "\n".join(str(block["content"]).splitlines()[:4])  # then the tool's "exit code"


def _direct(place: Place, wrapper: tuple[str, ...]) -> str:
    return place.run("sh", "-c", PROBE, wrapper=wrapper).stdout.strip()


@pytest.mark.timeout(300)
def test_a_warm_served_run_has_its_clients_scheduling(place: Place, fake_model: FakeAnthropic):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: an affinity of CPU 0 is everyone's")
    before = place.start()
    expected = _direct(place, LOWER)
    assert all(line in expected for line in ("nice 7", "mask 1", "idle", "oom 500")), expected
    assert _direct(place, ()) != expected  # the warm process's own differ from all of them
    assert _probed(place, fake_model, LOWER) == expected
    after = place.status()
    assert after is not None
    assert after["served"] == before["served"] + 1  # served warm, by a child that took them


@pytest.mark.timeout(300)
def test_scheduling_a_child_may_not_take_means_in_process(place: Place, fake_model: FakeAnthropic):
    if not place.prefix:
        pytest.skip("root may take any scheduling")
    place.start(wrapper=("nice", "-n", "5"))  # the first client was niced: so is the server
    expected = _direct(place, ())
    assert "nice 0" in expected
    assert _probed(place, fake_model, ()) == expected  # nice 0, not the server's 5
    status = place.status()
    assert status is not None
    assert status["served"] == 0
    assert "niceness cannot be taken" in status["last_refused"]
    shown = place.agent("server", "status").stdout
    assert "last client refused (it ran in-process)" in shown
