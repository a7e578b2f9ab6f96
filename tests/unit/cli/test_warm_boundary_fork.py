"""The warm process's rules (issue 58 item 6): it is Linux's only (elsewhere, with no pidfds and
no SO_PEERCRED, none is started and every run goes in-process, quietly); it forks from a
single thread (a lock some other thread held would be held for ever in the child); and nothing
of the process it was (its pid, directory, environment, user, clock, terminal) is captured at
import into the image its children share, since a child is its client, not the server."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_cli.cli.warm import client, place
from agent_cli.cli.warm.wire import Lines, send_request
from tests.e2e.helpers import REPO, run_agent
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="agent-ut-", dir="/tmp"))  # a short socket path
    folder.chmod(0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    monkeypatch.setenv("AGENT_SERVER", "1")
    monkeypatch.delenv("AGENT_NO_SERVER", raising=False)
    yield folder
    subprocess.run(["rm", "-rf", str(folder)], check=False)


@pytest.mark.parametrize("platform", ["darwin", "freebsd14", "win32"])
def test_elsewhere_than_linux_no_warm_process_is_started(
    runtime: Path, monkeypatch: pytest.MonkeyPatch, platform: str
):
    monkeypatch.setattr(sys, "platform", platform)
    assert place.choice({"AGENT_SERVER": "1"}).enabled is False
    assert client.through_server(["run", "-p", "hi"]) is None  # in-process
    client.start_server(str(runtime), "key", 60.0)
    assert list(runtime.iterdir()) == []  # not even its folder, lock or log: quietly


# the warm process, each fork of it recorded: how many threads it had at that moment
HOOKED = """import os, runpy, sys, threading
record = sys.argv.pop(1)
def before():
    with open(record, "a") as f:
        f.write(" ".join(t.name for t in threading.enumerate()) + "\\n")
os.register_at_fork(before=before)
runpy.run_module("agent_cli.cli.warm.server", run_name="__main__", alter_sys=True)
"""


def _status(folder: str) -> dict[str, object] | None:
    try:
        sock = client.connect(os.path.join(folder, place.SOCKET))  # noqa: PTH118
    except OSError:
        return None
    if sock is None:
        return None
    with sock:
        send_request(sock, {"op": "status"}, [])
        return Lines(sock).next()


@pytest.mark.timeout(120)
def test_the_warm_process_forks_from_its_only_thread(
    runtime: Path,
    fake_model: FakeAnthropic,
    fake_env: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv("PYTHONPATH", str(REPO))  # the clients' (run_agent's), in the key
    env = {**fake_env, "XDG_RUNTIME_DIR": str(runtime), "AGENT_SERVER": "1"}
    env.pop("AGENT_NO_SERVER", None)
    folder, key = place.private_dir(), place.version_key()
    record = tmp_path / "forks"
    argv = [sys.executable, "-c", HOOKED, str(record), folder, key, "60"]
    server = subprocess.Popen(argv, env={**env, "PYTHONPATH": str(REPO)}, cwd="/")
    try:
        wait_until(lambda: _status(folder) is not None, 60, "the warm process serving")
        fake_model.script.text("served").text("served")
        for _ in range(2):
            assert run_agent(env, tmp_path, "run", "-p", "hi").stdout == "served\n"
        status = _status(folder)
        assert status is not None
        assert status["served"] == 2
        assert record.read_text().splitlines() == ["MainThread", "MainThread"]
    finally:
        server.terminate()
        server.wait(30)


# what a module must not call at import: the process's own, not its children's
PER_PROCESS = {
    "os.getpid", "os.getppid", "os.getcwd", "os.getuid", "os.geteuid", "os.getgid", "os.getenv",
    "os.umask", "os.cpu_count", "os.get_terminal_size", "os.isatty", "os.path.expanduser",
    "Path.home", "Path.cwd", "time.time", "time.monotonic", "socket.gethostname",
    "getpass.getuser", "tempfile.gettempdir", "shutil.get_terminal_size", "os.environ.get",
    "os.environ.copy", "sys.stdout.isatty", "sys.stdin.isatty",
}  # fmt: skip
# captured, and made again by the child as it becomes its client (warm/child.py)
REMADE = {("agent_cli/core/files/durable.py", "time.time")}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else "?"


def _run_at_import(statements: list[ast.stmt]) -> Iterator[ast.AST]:
    """What a module runs as it is imported: its statements and class bodies, the defaults and
    decorators of its functions; not their bodies, nor lambdas, nor `if __name__ == ...`."""
    for stmt in statements:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from (*stmt.args.defaults, *filter(None, stmt.args.kw_defaults))
            yield from stmt.decorator_list
        elif isinstance(stmt, ast.ClassDef):
            yield from stmt.decorator_list
            yield from _run_at_import(stmt.body)
        elif isinstance(stmt, ast.If) and "__name__" in ast.dump(stmt.test):
            continue
        else:
            yield stmt


def _calls(node: ast.AST) -> Iterator[ast.AST]:
    if isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef):
        return
    if isinstance(node, ast.Call):
        yield node.func
    elif isinstance(node, ast.Subscript) and _dotted(node.value) == "os.environ":
        yield node.value
    for child in ast.iter_child_nodes(node):
        yield from _calls(child)


def test_nothing_of_the_process_is_captured_at_import():
    found = []
    for path in sorted((REPO / "agent_cli").rglob("*.py")):
        name = str(path.relative_to(REPO))
        for stmt in _run_at_import(ast.parse(path.read_text(encoding="utf-8")).body):
            for func in _calls(stmt):
                called = _dotted(func)
                if called in PER_PROCESS and (name, called) not in REMADE:
                    found.append(f"{name}:{func.lineno}: {called}")  # type: ignore[attr-defined]
    assert found == []
