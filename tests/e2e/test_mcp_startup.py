"""Nothing of `mcp` is imported when no server is configured; with one, it is (off the loop),
and only once the first request is on the wire: that request cannot use a server anyway."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.helpers import REPO
from tests.e2e.mcp_support import stdio_spec
from tests.fake_model import FakeAnthropic

PROBE = """
import sys, threading, time
first = []
def heard(event, args):
    if event == "import" and args[0] == "mcp" and not first:
        first.append(time.monotonic())
sys.addaudithook(heard)
sys.argv = ["agent", "run", "-p", "hello", "-q"]
from agent_cli.cli.entry import run_in_process
run_in_process(sys.argv[1:])  # main() ends with os._exit: the modules are looked at first
for thread in threading.enumerate():
    if thread.name == "import-mcp":
        thread.join(30)
sys.stderr.write("MCP_LOADED=" + str(any(m == "mcp" or m.startswith("mcp.") for m in sys.modules)))
sys.stderr.write("\\nMCP_IMPORTED_AT=" + repr(first[0] if first else None) + "\\n")
"""


def _probe(env: dict[str, str], workspace: Path) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=workspace,
        env={**env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return [x for x in proc.stderr.splitlines() if x.startswith("MCP_")]


@pytest.mark.parametrize("configured", [False, True])
def test_mcp_is_imported_only_when_a_server_is_configured(
    configured: bool, fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("glob", pattern="*.none").text("hi")  # servers start mid-turn
    if configured:
        settings = {"mcp_servers": {"testsrv": stdio_spec()}}
        (tmp_path / ".agent").mkdir()
        (tmp_path / ".agent" / "settings.json").write_text(json.dumps(settings))
        fake_env = {**fake_env, "AGENT_TRUST_WORKSPACE": "1"}  # workspace settings need trust
    loaded, imported_at = _probe(fake_env, tmp_path)
    assert loaded == f"MCP_LOADED={configured}"
    if configured:  # the audit hook and the fake model stamp with the same monotonic clock
        assert float(imported_at.split("=")[1]) > fake_model.requests[0].time
