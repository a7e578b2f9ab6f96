"""The Python form: a plugin folder whose pyproject.toml declares the `agent_cli.extensions`
entry point is installed by `agent plugin install` with pip of the interpreter the agent runs
on, and loads as a package's extension does (the real `agent run` offers its tool); uninstall
runs pip uninstall and leaves nothing.

The agent runs here on a throwaway virtual environment (its site-packages see the project's
through a .pth), so pip installs there and never into the suite's own environment; the
package builds with an in-tree backend of a few lines, and PIP_NO_INDEX keeps pip offline."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.plugin_store_support import (
    agent,
    config,
    index,
    one_line_error,
    plugin_env,
    settings,
    store_root,
)
from tests.fake_model import FakeAnthropic
from tests.plugin_fixtures import write_tree

PYPROJECT = """
[build-system]
requires = []
build-backend = "wheel_backend"
backend-path = ["."]

[project]
name = "greet-plugin"
version = "0.1"

[project.entry-points."agent_cli.extensions"]
greet = "greet_plugin:extension"
"""

BACKEND = '''
"""A build backend of a few lines: the wheel written by hand (no setuptools, no network)."""
import base64, hashlib, zipfile
from pathlib import Path

INFO = "greet_plugin-0.1.dist-info"
POINTS = b"[agent_cli.extensions]\\ngreet = greet_plugin:extension\\n"


def _record(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = {
        "greet_plugin.py": (Path(__file__).parent / "greet_plugin.py").read_bytes(),
        f"{INFO}/METADATA": b"Metadata-Version: 2.1\\nName: greet-plugin\\nVersion: 0.1\\n",
        f"{INFO}/WHEEL": b"Wheel-Version: 1.0\\nGenerator: hand\\nRoot-Is-Purelib: true\\n"
        b"Tag: py3-none-any\\n",
        f"{INFO}/entry_points.txt": POINTS,
    }
    name = "greet_plugin-0.1-py3-none-any.whl"
    with zipfile.ZipFile(Path(wheel_directory) / name, "w") as wheel:
        for path, data in files.items():
            wheel.writestr(path, data)
        record = [_record(p, d) for p, d in files.items()] + [f"{INFO}/RECORD,,"]
        wheel.writestr(f"{INFO}/RECORD", "\\n".join(record) + "\\n")
    return name
'''

MODULE = """
from pydantic import Field

from agent_cli.runtime.extensions import Extension, ExtensionTool, ToolInput, ToolResult


class Who(ToolInput):
    name: str = Field(description="Who to greet.")


class Greet(ExtensionTool[Who]):
    name = "greet"
    description = "Greet someone by name."
    input_model = Who
    read_only = True

    async def run(self, args, ctx):
        return ToolResult(f"Hi from a Python plugin, {args.name}!", summary="greeted")


extension = Extension(name="greet", tools=lambda context: [Greet()])
"""


@pytest.fixture
def venv(tmp_path: Path) -> tuple[str, Path]:
    """A virtual environment whose site-packages also see the project's (a .pth)."""
    folder = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    (Path(purelib) / "project.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return str(python), Path(purelib)


def _tools(body: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in body["tools"]]


def test_a_python_plugin_is_pip_installed_loads_as_an_extension_and_uninstalls(
    venv: tuple[str, Path], fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    python, site = venv
    env = {**plugin_env(tmp_path), "PIP_NO_INDEX": "1"}
    env.update(ANTHROPIC_BASE_URL=fake_env["ANTHROPIC_BASE_URL"])
    env.update(ANTHROPIC_API_KEY=fake_env["ANTHROPIC_API_KEY"])
    work = tmp_path / "work"
    work.mkdir()
    package = write_tree(
        tmp_path / "greet",
        {"pyproject.toml": PYPROJECT, "wheel_backend.py": BACKEND, "greet_plugin.py": MODULE},
    )
    ours = Path(sysconfig.get_paths()["purelib"])

    installed = agent(env, work, "plugin", "install", str(package), "--yes", python=python)
    assert installed.returncode == 0, installed.stderr
    assert "python package greet-plugin 0.1 into " in installed.stdout
    assert "its code runs inside the agent, as the extension(s) greet" in installed.stdout
    assert (site / "greet_plugin-0.1.dist-info" / "entry_points.txt").is_file()
    assert not list(ours.glob("greet_plugin*"))  # never the suite's own environment
    assert index(env)["installed"]["greet-plugin@local"]["kind"] == "python"
    assert settings(config(env) / "settings.json") == {
        "plugins": {"enabled": {"greet-plugin@local": True}}
    }

    fake_model.script.tool_use("greet", name="Ada").text("Greeted.")
    ran = agent(env, work, "run", "-p", "greet Ada", python=python)
    assert ran.returncode == 0, ran.stderr
    assert "greet" in _tools(fake_model.bodies()[0])
    assert "Hi from a Python plugin, Ada!" in str(fake_model.bodies()[1]["messages"])

    disabled = agent(env, work, "plugin", "disable", "greet-plugin", python=python)
    assert "loads while installed; uninstall it" in one_line_error(disabled, 2)

    removed = agent(env, work, "plugin", "uninstall", "greet-plugin", python=python)
    assert removed.returncode == 0, removed.stderr
    assert not list(site.glob("greet_plugin*"))
    assert index(env)["installed"] == {}
    assert not (store_root(env) / "installed").exists()
    assert settings(config(env) / "settings.json") == {}
    fake_model.script.text("No greeting tool.")
    again = agent(env, work, "run", "-p", "greet Bo", python=python)
    assert again.returncode == 0, again.stderr
    assert "greet" not in _tools(fake_model.bodies()[-1])
