"""An installed plugin wakes what uses what plugins bring (project files, MCP, language
servers) before any of them is imported; with none installed, a run asks the port of no
dormant built-in, so the plugins extension stays unimported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.runtime.bundles import PORT, NoBundles
from agent_cli.runtime.extensions import asked
from agent_cli.runtime.extensions.bundle_port import bundles_of
from agent_cli.runtime.extensions.contract import ExtensionContext
from agent_cli.runtime.extensions.discovery import BUILTIN, Asking, Declared
from agent_cli.runtime.extensions.registry import discover, lsp_asked, mcp_asked

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("AGENT_LSP_BUILTIN", "0")
    monkeypatch.delenv("AGENT_PLUGINS_ON", raising=False)
    (tmp_path / "work").mkdir()
    return tmp_path


def wakes(asking: Asking) -> list[bool]:
    return [asked.project_files(asking), mcp_asked(asking), lsp_asked(asking)]


def test_an_installed_plugin_wakes_project_files_mcp_and_lsp(home: Path):
    asking = Asking(workspace=home / "work", command="run")
    assert wakes(asking) == [False, False, False]
    (home / "config" / "agent" / "plugins" / "installed").mkdir(parents=True)
    assert wakes(asking) == [True, True, True]


def test_a_run_enabling_plugins_by_name_wakes_them(home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AGENT_PLUGINS_ON", "kit@team")
    assert wakes(Asking(workspace=home / "work", command="run")) == [True, True, True]


def test_a_plugins_section_wakes_them(home: Path):
    asking = Asking(frozenset({"plugins"}), home / "work", "run")
    assert wakes(asking) == [True, True, True]


ASLEEP = Declared(
    "sleeper", "agent_cli_no_such_module:EXTENSION", BUILTIN, lambda _: False, ports=(PORT,)
)


def test_asking_the_port_wakes_no_dormant_builtin(home: Path):
    """`ExtensionContext.ports` asks only what is loaded: a dormant provider stays unimported
    (were it woken, its missing module would be a problem line)."""
    extensions = discover(path=[], builtins=[ASLEEP], asking=Asking(command="run"))
    work = home / "work"
    context = ExtensionContext("x", work, Paths(work), Settings(), "s-1")
    port = lambda name: extensions.port(name, lambda n: context, wake=False)  # noqa: E731
    assert isinstance(bundles_of(port), NoBundles)
    assert list(extensions.dormant) == ["sleeper"]
    assert extensions.problems == ()
    assert "agent_cli_no_such_module" not in sys.modules


PROBE = """
import sys
from pathlib import Path
from agent_cli.runtime.extensions.bundle_port import workspace_bundles
source = workspace_bundles(Path(sys.argv[1]), "commands")
print(type(source).__name__, "agent_cli.ext.plugins" in sys.modules)
"""


def test_a_listing_without_plugins_imports_nothing_of_them(home: Path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(home / "work")],
        env=env, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert done.stdout.split() == ["NoBundles", "False"]
    (home / "config" / "agent" / "plugins" / "installed").mkdir(parents=True)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(home / "work")],
        env=env, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert done.stdout.split()[1] == "True"  # an installed plugin: the extension answers
