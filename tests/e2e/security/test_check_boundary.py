"""A goal's check runs confined, and what it plants where the agent or the user will run git
later is moved aside when it ends, as after a bash command (issue 50: a confined command leaves
nothing that runs outside later)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_cli.core.settings.sandbox import SandboxSettings
from agent_cli.ext.goals.check_run import run_check

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")


def test_a_check_that_plants_a_git_config_leaves_nothing_that_runs(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    marker = outside / "fsmonitor-ran"
    planted = (
        "git init -q && "
        f"git config core.fsmonitor 'touch {marker}; false' && "
        f"touch {outside}/written-inside 2>/dev/null; true"
    )
    sandbox = SandboxSettings.model_validate({"mode": "required"})
    ran = asyncio.run(run_check(planted, ws, sandbox, timeout_s=60, tail=2000))
    assert ran.exit_code == 0, ran.output
    assert not (outside / "written-inside").exists()  # it was confined
    assert "sandbox-rejected" in ran.output  # and what it planted was moved aside
    subprocess.run(["git", "status"], cwd=ws, capture_output=True, check=False)
    assert not marker.exists()
