"""The language servers' service says whether a server could check an edit before it makes the
manager (so a run imports the servers' code only at the first edit): its answer is the
manager's, for every way the settings and PATH can decide it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_cli.ext.lsp import could_serve
from agent_cli.ext.lsp.manager import LspManager
from agent_cli.ext.lsp.service import Checks, LspService
from agent_cli.ext.lsp.settings import LspServerSpec, LspSettings

SPEC = LspServerSpec(command=["/bin/false"], extensions=[".py"])


@pytest.fixture
def ruff_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `ruff` (never started here) alone on PATH; the built-in servers allowed."""
    folder = tmp_path / "bin"
    folder.mkdir()
    ruff = folder / "ruff"
    ruff.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    ruff.chmod(0o755)
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.delenv("AGENT_LSP_BUILTIN", raising=False)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace


@pytest.mark.parametrize(
    ("settings", "env", "path"),
    [
        (LspSettings(), None, True),
        (LspSettings(), "0", True),
        (LspSettings(), None, False),
        (LspSettings(builtin=False), None, True),
        (LspSettings(enabled=False), None, True),
        (LspSettings(servers={"mine": SPEC}), "0", False),
        (LspSettings(enabled=False, servers={"mine": SPEC}), None, False),
    ],
)
def test_the_service_answers_as_the_manager_would(
    ruff_on_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    settings: LspSettings,
    env: str | None,
    path: bool,
) -> None:
    if env is not None:
        monkeypatch.setenv("AGENT_LSP_BUILTIN", env)
    if not path:
        monkeypatch.setenv("PATH", "/nonexistent")
    expected = LspManager(settings, ruff_on_path).any_server()
    assert could_serve(settings, ruff_on_path) is expected


class _Runtime:
    def __init__(self, workspace: Path, settings: LspSettings) -> None:
        self.options = type("Options", (), {"workspace": workspace})()
        self.settings = type("Settings", (), {"lsp": settings})()
        self.port = lambda name: None  # as the Runtime's when no extension answers a port


def test_edits_are_checked_through_the_manager_made_at_the_first_check(ruff_on_path: Path) -> None:
    service = LspService(_Runtime(ruff_on_path, LspSettings()), could_serve)
    checks = service.diagnoser()
    assert isinstance(checks, Checks)
    assert service._manager is None  # nothing made before an edit is checked
    (ruff_on_path / "notes.txt").write_text("x\n", encoding="utf-8")
    report = asyncio.run(checks.after_edit(ruff_on_path / "notes.txt"))  # no server covers it
    assert report.text == ""
    assert service.diagnoser() is service.manager  # sessions opened later get the manager
    asyncio.run(service.aclose())
