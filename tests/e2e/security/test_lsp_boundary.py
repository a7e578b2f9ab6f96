"""Programs the agent starts outside the sandbox, played by a hostile repository (issue 50, items
10 and 14, and the start gate's own shell).

A clone ships executables named like the programs the agent starts (`ruff`, `pylsp`, `bash`,
`python`) in its root and in `node_modules/.bin`, and the user's PATH holds an empty or relative
entry: each would write a marker file outside the workspace if it ever ran. The real `agent run`
(fake model) edits a file, calls an MCP tool, runs a hook; the marker must not appear, and the
real program must have run instead. A language server must not see the agent's key or a token.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from agent_cli.ext.lsp.manager import LspManager
from agent_cli.ext.lsp.settings import LspSettings
from tests.conftest import FAKE_API_KEY
from tests.e2e.helpers import last_user_blocks, run_agent
from tests.e2e.mcp_support import SERVER
from tests.fake_model import FakeAnthropic

VENV_BIN = str(Path(sys.executable).parent)  # where the real ruff, pylsp and python are
FAKE_LSP = Path(__file__).resolve().parents[1] / "lsp_servers" / "fake_lsp.py"
PYTHON_SERVERS = ("ruff", "pylsp", "pyright-langserver")  # the built-ins for .py files
GITHUB_TOKEN = "ghp_" + "t" * 36
EDITS = ("--permission-mode", "accept-edits")  # edits unasked; the rest as by default


def planted(folder: Path, names: tuple[str, ...], marker: Path) -> None:
    """Executables that say (outside the workspace) that they ran, and do nothing else."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        script = folder / name
        script.write_text(f'#!/bin/sh\necho "$0" >> {shlex.quote(str(marker))}\n')
        script.chmod(0o755)


def user_settings(env: dict[str, str], settings: dict[str, object]) -> None:
    folder = Path(env["HOME"]) / ".config" / "agent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(settings))


def with_builtins(env: dict[str, str], path: str) -> dict[str, str]:
    """`env` with `path` as PATH and the built-in language servers looked up (the suite turns
    them off everywhere else)."""
    env = {**env, "PATH": path}
    env.pop("AGENT_LSP_BUILTIN", None)
    return env


@pytest.mark.parametrize("how", ["shipped", "written by a confined command"])
def test_a_language_server_the_repository_holds_never_starts_unconfined(
    fake_model: FakeAnthropic,
    fake_env: dict[str, str],
    places: tuple[Path, Path],
    how: str,
):
    workspace, outside = places
    marker = outside / "ran"
    env = with_builtins(fake_env, f"node_modules/.bin::{VENV_BIN}:{fake_env['PATH']}")
    script = fake_model.script
    if how == "shipped":
        planted(workspace, PYTHON_SERVERS, marker)
        planted(workspace / "node_modules" / ".bin", PYTHON_SERVERS, marker)
    else:
        if shutil.which("bwrap") is None:
            pytest.skip("bubblewrap not installed")
        env["AGENT_SANDBOX"] = "required"
        lines = f'#!/bin/sh\\necho "$0" >> {marker}\\n'
        plant = (
            "mkdir -p node_modules/.bin && for n in " + " ".join(PYTHON_SERVERS) + "; do "
            f"printf '{lines}' > $n && chmod +x $n && cp $n node_modules/.bin/; done"
        )
        script.tool_use("bash", command=plant)
    script.tool_use("write_file", path="mod.py", content="x = 1\n").text("done")
    proc = run_agent(env, workspace, "run", "-p", "write mod.py", *EDITS)
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "node_modules" / ".bin" / "pylsp").exists()  # the repository's are there
    assert (workspace / "pylsp").exists()
    assert not marker.exists(), marker.read_text()
    log = (workspace / "logs" / "agent.log").read_text()
    (started, *_) = re.findall(r"language server (\S+) running", log)
    assert started in PYTHON_SERVERS  # the real one, from the venv, checked the file


def test_a_language_server_gets_neither_the_agents_key_nor_a_token(
    fake_model: FakeAnthropic, fake_env: dict[str, str], places: tuple[Path, Path]
):
    workspace, outside = places
    dump = outside / "server-env.txt"
    wrapper = outside / "dumping-lsp"  # the user's own server: it writes what it was given
    wrapper.write_text(
        f"#!/bin/sh\nenv > {shlex.quote(str(dump))}\n"
        f"exec {shlex.quote(sys.executable)} {shlex.quote(str(FAKE_LSP))} ok\n"
    )
    wrapper.chmod(0o755)
    server = {"command": [str(wrapper)], "extensions": [".py"]}
    user_settings(fake_env, {"lsp": {"servers": {"dumping": server}, "wait_ms": 5000}})
    env = {**fake_env, "GITHUB_TOKEN": GITHUB_TOKEN}
    fake_model.script.tool_use("write_file", path="a.py", content="x = 1  # BROKEN\n").text("ok")
    proc = run_agent(env, workspace, "run", "-p", "write a.py", *EDITS)
    assert proc.returncode == 0, proc.stderr
    (result,) = last_user_blocks(fake_model.bodies()[-1])
    assert "BROKEN on line 1 (fake)" in str(result["content"])  # the server did check it
    seen = dict(line.split("=", 1) for line in dump.read_text().splitlines() if "=" in line)
    assert seen["HOME"] == env["HOME"]  # the user's environment, less credentials
    assert "ANTHROPIC_API_KEY" not in seen
    assert "GITHUB_TOKEN" not in seen
    assert FAKE_API_KEY not in dump.read_text()
    assert GITHUB_TOKEN not in dump.read_text()


def test_a_stdio_mcp_server_and_the_gate_shell_are_never_found_in_the_workspace(
    fake_env: dict[str, str], places: tuple[Path, Path]
):
    """A stdio MCP server starts behind the gate's shell (`bash`), its command here a bare
    `python`: with an empty PATH entry both were found in the workspace, its working directory."""
    workspace, outside = places
    marker = outside / "ran"
    planted(workspace, ("bash", "python"), marker)
    user_settings(
        fake_env, {"mcp_servers": {"testsrv": {"command": "python", "args": [str(SERVER)]}}}
    )
    env = {**fake_env, "PATH": f":{VENV_BIN}:{fake_env['PATH']}"}
    proc = run_agent(env, workspace, "mcp", "list", "--json")  # starts it, waits, stops it
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), marker.read_text()
    (status,) = json.loads(proc.stdout)
    assert status["state"] == "ready", status  # the real server, by the venv's python
    assert "echo" in status["tools"]


def test_a_hook_starts_by_the_real_shell_never_the_workspaces(
    fake_model: FakeAnthropic, fake_env: dict[str, str], places: tuple[Path, Path]
):
    """The user's own hook, started behind the gate's shell (`bash`) with the workspace as its
    working directory: with an empty PATH entry, `bash` was the repository's."""
    workspace, outside = places
    marker, said = outside / "ran", outside / "hook-said"
    planted(workspace, ("bash",), marker)
    hook = {"command": f"echo hook >> {shlex.quote(str(said))}"}
    user_settings(fake_env, {"hooks": {"pre_tool_use": [hook]}})
    env = {**fake_env, "PATH": f":{fake_env['PATH']}"}
    fake_model.script.tool_use("glob", pattern="*.none").text("done")
    proc = run_agent(env, workspace, "run", "-p", "look")
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), marker.read_text()
    assert said.read_text() == "hook\n"  # it ran, by the real shell


def test_a_users_server_or_formatter_naming_a_workspace_file_waits_for_trust(
    fake_model: FakeAnthropic, fake_env: dict[str, str], places: tuple[Path, Path]
):
    """The user's own settings name programs by a path that lands in this workspace (relative,
    or absolute inside it): in a clone nobody trusted they are the repository's files."""
    workspace, outside = places
    marker = outside / "ran"
    planted(workspace / "node_modules" / ".bin", ("pylsp", "prettier"), marker)
    py = [".py"]
    lsp = {
        "servers": {
            "relative": {"command": ["./node_modules/.bin/pylsp"], "extensions": py},
            "inside": {"command": [str(workspace / "node_modules/.bin/pylsp")], "extensions": py},
        },
        "format_on_edit": True,
        "formatters": {".py": ["node_modules/.bin/prettier", "{file}"]},
    }
    user_settings(fake_env, {"lsp": lsp})
    fake_model.script.tool_use("write_file", path="mod.py", content="x = 1\n").text("done")
    proc = run_agent(fake_env, workspace, "run", "-p", "write mod.py", *EDITS)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), marker.read_text()
    (result,) = last_user_blocks(fake_model.bodies()[-1])
    assert (
        "The formatter `node_modules/.bin/prettier` did not run: node_modules/.bin/prettier is "
        "in the workspace, which is not trusted (`agent trust`)."
    ) in str(result["content"])
    log = (workspace / "logs" / "agent.log").read_text()
    assert "language server relative: cannot start ./node_modules/.bin/pylsp" in log
    assert "language server inside: cannot start" in log


def test_once_trusted_a_workspace_server_runs(tmp_path: Path):
    """What trust allows: the same kind of command, in a trusted workspace, checks the file."""
    server = tmp_path / "tools" / "lsp"
    server.parent.mkdir()
    server.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} {FAKE_LSP} ok\n")
    server.chmod(0o755)
    spec = {"command": ["./tools/lsp"], "extensions": [".py"]}
    settings = LspSettings.model_validate({"builtin": False, "servers": {"mine": spec}})
    (tmp_path / "a.py").write_text("x = 1  # BROKEN\n")

    async def check(trusted: bool) -> str:
        lsp = LspManager(settings, tmp_path, trusted=lambda: trusted)
        try:
            return await lsp.report([tmp_path / "a.py"])
        finally:
            await lsp.aclose()

    assert asyncio.run(check(False)) == "a.py: no answer from mine in time"
    assert asyncio.run(check(True)) == "a.py:1:10 error BROKEN on line 1 (fake)"
