"""Background jobs plug in as the extension "jobs": without its registry line a run still works
(bash in the foreground, no job tools, a background start refused in words); a command that
does not ask for it never imports it; and a plain `agent run` offers its tools without importing
its board, ledger or watcher before the first request."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent_cli.core.options import Options
from agent_cli.runtime.build import build_runtime
from agent_cli.runtime.extensions.registry import BUILTINS, discover
from agent_cli.tools.shell.bash_jobs import NOT_HERE
from tests.e2e.jobs_support import results
from tests.e2e.runtime_support import drive
from tests.fake_model import FakeAnthropic

REPO = Path(__file__).resolve().parents[3]
HEAVY = ("agent_cli.ext.jobs.board", "agent_cli.ext.jobs.ledger", "agent_cli.ext.jobs.job")


def _offered(body: dict[str, object]) -> list[str]:
    tools = body["tools"]
    assert isinstance(tools, list)
    return [str(tool["name"]) for tool in tools]


@pytest.mark.usefixtures("sdk_env", "sandbox_off")
@pytest.mark.parametrize("present", [False, True])
def test_a_run_works_with_or_without_the_jobs_extension(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, present: bool
):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    builtins = [d for d in BUILTINS if present or d.name != "jobs"]
    fake_model.script.tool_use("bash", command="sleep 30", run_in_background=True)
    fake_model.script.tool_use("bash", command="echo in the foreground").text("done")
    options = Options(workspace=tmp_path, permission_mode="bypass", one_shot=True)
    runtime = build_runtime(options, quiet=True, extensions=discover(path=[], builtins=builtins))
    asyncio.run(drive(runtime, "go"))

    first, *_, last = fake_model.bodies()
    background, foreground = results(last)
    assert "in the foreground" in foreground
    offered = _offered(first)
    assert "bash" in offered
    if present:
        assert {"bash_output", "bash_kill"} <= set(offered)
        assert "Started in the background as job j1" in background
    else:
        assert not {"bash_output", "bash_kill"} & set(offered)
        assert background == NOT_HERE


def test_a_command_that_does_not_ask_for_jobs_never_imports_it():
    code = textwrap.dedent(
        """
        import sys
        from agent_cli.runtime.extensions.discovery import Asking
        from agent_cli.runtime.extensions.registry import discover

        found = discover(path=[], asking=Asking(command="mcp"))
        jobs = [m for m in sys.modules if m.startswith("agent_cli.ext.jobs")]
        print("jobs" in found.dormant, jobs)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "[]"]  # the other built-ins are not this test's


FIRST_REQUEST = textwrap.dedent(
    """
    import json, os, sys, tempfile
    from tests.fake_model import FakeAnthropic

    seen = {}

    class Watching(FakeAnthropic):
        def answer(self, raw_path, headers, raw):
            if not seen and raw_path.startswith("/v1/messages"):
                seen["modules"] = [m for m in sys.modules if m.startswith("agent_cli.ext.jobs")]
                seen["tools"] = [t["name"] for t in json.loads(raw)["tools"]]
            return super().answer(raw_path, headers, raw)

    fake = Watching().start()
    fake.script.text("hello")
    os.environ.update(ANTHROPIC_BASE_URL=fake.base_url, HOME=tempfile.mkdtemp())
    os.chdir(tempfile.mkdtemp())
    from agent_cli.cli.entry import run_in_process

    code = run_in_process(["run", "-p", "hi"])
    fake.stop()
    print(json.dumps({"code": code, **seen}))
    """
)


def test_a_plain_run_offers_jobs_without_importing_its_board(fake_env: dict[str, str]):
    env = {**fake_env, "PYTHONPATH": str(REPO), "AGENT_NO_SERVER": "1"}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_REQUEST], capture_output=True, text=True, env=env, cwd=REPO
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["code"] == 0
    assert {"bash", "bash_output", "bash_kill"} <= set(seen["tools"])
    assert "agent_cli.ext.jobs" in seen["modules"]  # asked by `run`
    assert not set(HEAVY) & set(seen["modules"])
