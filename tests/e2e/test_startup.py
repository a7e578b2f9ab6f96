"""Light start-up: the commands that need no model never import the SDK or the UI stack."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.helpers import REPO

PROBE = """
import json, sys
spares = json.loads(sys.argv[2])
sys.argv = ["agent", *json.loads(sys.argv[1])]
from agent_cli.cli.entry import main
try:
    main()
except SystemExit:
    pass
heavy = [m for m in ("anthropic", "httpx2", "prompt_toolkit", "rich.markdown", *spares)
         if m in sys.modules]
heavy += [m for m in sys.modules if m.startswith("agent_cli.ext.")]  # a feature's own code
sys.stderr.write("HEAVY=" + json.dumps(heavy) + "\\n")
"""
# `agent --help` lists the commands from their declared help lines: no command's module is
# imported, nor the extension contract and the pydantic models it carries
HELP_SPARES = ["pydantic", "agent_cli.runtime.extensions.contract", "agent_cli.core.tool_contract"]


@pytest.mark.parametrize(
    ("argv", "also"), [(["--version"], []), (["--help"], HELP_SPARES), (["sessions", "list"], [])]
)
def test_no_heavy_imports(argv: list[str], also: list[str], tmp_path: Path):
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(argv), json.dumps(also)],
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    line = next(x for x in proc.stderr.splitlines() if x.startswith("HEAVY="))
    assert json.loads(line.removeprefix("HEAVY=")) == []
    assert proc.stdout.strip()
