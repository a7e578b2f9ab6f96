"""The MCP client and the language servers as extensions: dormant on a plain run, asked by
what configures them, and a run without them in the registry still answers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agent_cli.core.options import Options
from agent_cli.runtime.build import build_runtime
from agent_cli.runtime.extensions.discovery import Asking
from agent_cli.runtime.extensions.registry import BUILTINS, LSP_PROGRAMS, discover
from tests.e2e.runtime_support import drive
from tests.fake_model import FakeAnthropic

MINE = {"mcp", "lsp"}


@pytest.fixture
def empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no user settings
    monkeypatch.setenv("AGENT_LSP_BUILTIN", "0")  # no language server from the PATH
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace


def asked(workspace: Path, *keys: str) -> set[str]:
    asking = Asking(frozenset(keys), workspace, "run")
    found = discover(path=[], builtins=[d for d in BUILTINS if d.name in MINE], asking=asking)
    return set(found.names())


def test_a_plain_run_leaves_both_dormant(empty: Path):
    found = discover(path=[], asking=Asking(frozenset(), empty, "run"))
    assert set(found.dormant) >= MINE
    assert not MINE & set(found.names())


def test_configured_servers_ask_for_them(empty: Path, monkeypatch: pytest.MonkeyPatch):
    assert asked(empty, "mcp_servers") == {"mcp"}
    assert asked(empty, "mcp") == {"mcp"}
    assert asked(empty, "lsp") == {"lsp"}
    (empty / ".mcp.json").write_text(json.dumps({"mcpServers": {}}))
    assert asked(empty) == {"mcp"}
    (empty / ".mcp.json").unlink()
    user = empty.parent / "config" / "agent" / "mcp.json"
    user.parent.mkdir(parents=True)
    user.write_text("{}")
    assert asked(empty) == {"mcp"}
    user.unlink()
    monkeypatch.delenv("AGENT_LSP_BUILTIN")  # a built-in server on PATH asks, as any_server()
    bin_dir = empty.parent / "bin"
    bin_dir.mkdir()
    (bin_dir / "gopls").write_text("#!/bin/sh\n")
    (bin_dir / "gopls").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert asked(empty) == {"lsp"}


def test_the_registry_knows_every_built_in_language_server_command():
    from agent_cli.ext.lsp.builtins import BUILTIN

    assert set(LSP_PROGRAMS) == {spec.command[0] for spec in BUILTIN.values()}


@pytest.mark.usefixtures("sdk_env")
def test_a_run_without_them_in_the_registry_answers(empty: Path, fake_model: FakeAnthropic):
    (empty / ".mcp.json").write_text(json.dumps({"mcpServers": {"x": {"command": "nope"}}}))
    fake_model.script.text("hello")
    without = discover(path=[], builtins=[d for d in BUILTINS if d.name not in MINE])
    options = Options(workspace=empty, permission_mode="bypass", one_shot=True)
    runtime = build_runtime(options, quiet=True, extensions=without)
    assert runtime.port("tool_source") is None
    assert runtime.session.tool_ctx.diagnoser is None
    events = asyncio.run(drive(runtime, "hi"))
    assert any(getattr(e, "text", "") == "hello" for e in events)
    offered = [t["name"] for t in fake_model.bodies()[0]["tools"]]
    assert "diagnostics" not in offered
    assert not any(n.startswith("mcp__") for n in offered)
