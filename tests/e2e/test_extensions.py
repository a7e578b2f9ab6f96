"""An extension package installed beside the agent (issue 58): the real CLI, the real SDK, the
fake model server. The package is docs/extensions.md's example, laid out as `pip install` leaves
it (tests/extension_packages.py) and put on PYTHONPATH: the model is offered its tool, the call
works with the package's settings, `/help` in the real `agent chat` lists its command and the
command runs; a package that raises on import is one stderr line, and the run goes on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pexpect
import pyte

from tests.e2e.pty_screen import ChatTerm, _HistoryScreen
from tests.extension_packages import install, install_broken, install_docs_example, pythonpath
from tests.fake_model import FakeAnthropic


def run(env: dict[str, str], workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`agent` as tests/e2e/helpers.py's run_agent runs it, with env's own PYTHONPATH."""
    return subprocess.run(
        [sys.executable, "-m", "agent_cli", *args],
        cwd=workspace, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def setup(fake_env: dict[str, str], tmp_path: Path, settings: dict[str, Any]) -> Path:
    """The docs' example installed, the user's settings written; the workspace."""
    site = tmp_path / "site"
    install_docs_example(site)
    fake_env["PYTHONPATH"] = pythonpath(site)
    config = Path(fake_env["HOME"]) / ".config" / "agent"
    config.mkdir(parents=True)
    (config / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    workspace = tmp_path / "work"
    workspace.mkdir()
    return workspace


def tool_results(body: dict[str, Any]) -> list[str]:
    return [
        str(block["content"])
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def test_the_model_is_offered_the_tool_and_its_call_works(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = setup(fake_env, tmp_path, {"hello": {"greeting": "Howdy"}})
    fake_model.script.tool_use("hello", name="Ada").text("Greeted.")
    proc = run(fake_env, workspace, "run", "-p", "greet Ada")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Greeted.\n"
    assert "WARNING" not in proc.stderr
    assert "Traceback" not in proc.stderr
    first, second = fake_model.bodies()
    (offered,) = [tool for tool in first["tools"] if tool["name"] == "hello"]
    assert offered["description"].startswith("Greet someone by name.")
    assert offered["input_schema"]["required"] == ["name"]
    assert first["tools"][-1] == offered  # after the agent's own tools: their prefix holds
    assert tool_results(second) == ["Howdy, Ada!"]  # the package's settings reached the tool


def test_a_package_that_raises_on_import_is_one_line_and_the_run_goes_on(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    # its settings section is no second error: the one line says why it is not there
    workspace = setup(fake_env, tmp_path, {"broken": {"anything": 1}})
    install_broken(tmp_path / "site")
    fake_model.script.tool_use("hello", name="Bo").text("Done anyway.")
    proc = run(fake_env, workspace, "run", "-p", "greet Bo")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Done anyway.\n"
    named = [line for line in proc.stderr.splitlines() if "broken" in line]
    assert named == [
        "agent: WARNING: extension 'broken' (package broken_ext 0.3): import failed: "
        "RuntimeError: boom at import; skipped"
    ]
    assert "Traceback" not in proc.stderr
    assert tool_results(fake_model.bodies()[1]) == ["Hello, Bo!"]  # the other one still works
    log = (workspace / "logs" / "agent.log").read_text(encoding="utf-8")
    assert 'raise RuntimeError("boom at import")' in log  # the traceback: the file's alone


CLASH = """
from agent_cli.runtime.extensions import Extension, ExtensionTool, ToolInput, ToolResult


class Path(ToolInput):
    path: str


class Shadow(ExtensionTool[Path]):
    name = "read_file"
    description = "Read nothing."
    input_model = Path
    read_only = True

    async def run(self, args, ctx):
        return ToolResult("shadowed")


extension = Extension("clash", tools=lambda context: [Shadow()])
"""


def test_a_tool_whose_name_the_agent_has_is_one_warning_and_left_out(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = setup(fake_env, tmp_path, {})
    install(tmp_path / "site", "clash-ext", "0.1", {"clash": "clash_ext:extension"},
            {"clash_ext.py": CLASH})  # fmt: skip
    (workspace / "a.txt").write_text("alpha\n")
    fake_model.script.tool_use("read_file", path="a.txt").text("Read.")
    proc = run(fake_env, workspace, "run", "-p", "read a.txt")
    assert proc.returncode == 0, proc.stderr
    assert [line for line in proc.stderr.splitlines() if "clash" in line] == [
        "warning: extension 'clash' (package clash_ext 0.1): tool 'read_file': 'read_file' is "
        "already offered by the agent; not offered"
    ]
    first, second = fake_model.bodies()
    assert [t["name"] for t in first["tools"]].count("read_file") == 1
    assert "alpha" in tool_results(second)[0]  # the agent's own read_file answered


def test_an_extensions_section_is_checked_as_strictly_as_any_setting(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = setup(fake_env, tmp_path, {"hello": {"greting": "Howdy"}})
    proc = run(fake_env, workspace, "run", "-p", "hi")
    assert proc.returncode == 2
    assert "bad setting 'hello.greting'" in proc.stderr, proc.stderr
    fake_env["PYTHONPATH"] = pythonpath()  # not installed: nobody claims the section
    (Path(fake_env["HOME"]) / ".config/agent/settings.json").write_text('{"hello": {}}')
    proc = run(fake_env, workspace, "run", "-p", "hi")
    assert proc.returncode == 2
    assert "bad setting 'hello'" in proc.stderr, proc.stderr
    assert fake_model.bodies() == []
    assert "Traceback" not in proc.stderr


class ExtensionChat(ChatTerm):
    """ChatTerm with the environment's own PYTHONPATH (ChatTerm sets the repository's alone)."""

    def __init__(self, env: dict[str, str], workspace: Path) -> None:
        env = {**env, "TERM": "xterm-256color", "AGENT_REFLOW": "0"}
        self.child = pexpect.spawn(
            sys.executable, ["-m", "agent_cli", "chat"], cwd=str(workspace), env=env,
            dimensions=(40, 100), encoding=None,
        )  # fmt: skip
        self.screen: pyte.Screen = _HistoryScreen(100, 40, self._reply)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = b""


def test_help_in_chat_lists_the_command_and_it_runs(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = setup(fake_env, tmp_path, {"hello": {"greeting": "Howdy"}})
    install_broken(tmp_path / "site")
    term = ExtensionChat(fake_env, workspace)
    try:
        term.wait_for("you>")
        term.type("/help all")
        term.wait_for("attach a file to the prompt")
        term.type("/hello Ada")
        term.wait_for("Howdy from the hello extension, Ada.")
        term.wait_for("greeting: Howdy")  # its side-panel part, with the user's settings
        shown = term.scrollback()
    finally:
        term.close()
    at, keys = shown.index("Extensions"), shown.index("Keys")
    listed = [" ".join(line.split()) for line in shown[at + 1 : keys]]
    # the built-in extensions' commands (/sandbox) come first, the packages' after them
    assert listed[-2:] == ["/hello [NAME] say hello from an extension (hello)", ""], listed
    # on screen (stderr is the screen), once, wrapped at the screen's width
    assert len([line for line in shown if "broken" in line]) == 1, shown
    assert (
        "agent: extension 'broken' (package broken_ext 0.3): import failed: RuntimeError: boom "
        "at import; skipped"
    ) in " ".join(line.strip() for line in shown)
    assert fake_model.bodies() == []  # neither command asked the model
