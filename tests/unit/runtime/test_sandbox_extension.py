"""The sandbox plugs in as the extension `sandbox` (issue 58): the bash tool asks for the port
`"shell_wrapper"`, made when the first command runs. Without the extension a plain run still
works (its commands run as `sandbox.mode: off` runs them), and a `required` sandbox refuses
every command rather than run one unconfined. Runs go through `agent run` in a process of
their own, against the fake model."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.runtime.assembly import base_tools
from agent_cli.runtime.extensions.contract import ExtensionContext
from agent_cli.runtime.extensions.discovery import Asking
from agent_cli.runtime.extensions.registry import BUILTINS, discover
from agent_cli.tools.registry import ToolRegistry
from agent_cli.tools.shell.bash import Bash, BashInput
from agent_cli.tools.shell.confined import ShellWrapper
from tests.fake_model import FakeAnthropic
from tests.unit.tool_helpers import call, make_ctx

REPO = Path(__file__).resolve().parents[3]
# `agent run -p go` in-process with the built-ins less those named in argv[1]; the modules of
# the sandbox it imported are said on stderr
RUN = """
import sys
from agent_cli.runtime import build
from agent_cli.runtime.extensions import registry
left_out = set(sys.argv[1].split(","))
kept = tuple(d for d in registry.BUILTINS if d.name not in left_out)
real = registry.discover
build.discover = lambda path=None, builtins=kept, asking=registry.EVERYTHING: real(
    path, builtins, asking
)
from agent_cli.cli.entry import run_in_process
code = run_in_process(["run", "-p", "go"])
loaded = sorted(m for m in sys.modules if m.startswith("agent_cli.ext.sandbox"))
sys.stderr.write("LOADED " + " ".join(loaded) + "\\n")
sys.exit(code)
"""
NAMESPACE = "ls -iL /proc/self/ns/pid"  # read-only: unasked, confined or not
COMMAND_MODULES = {"agent_cli.ext.sandbox.plugin.wrapper", "agent_cli.ext.sandbox.plugin.command"}


def _run(env: dict[str, str], ws: Path, left_out: str) -> tuple[int, str, set[str]]:
    """The run's exit code, stderr and the sandbox's modules it imported. The user allows
    `ls` anywhere (outside the workspace it is asked when it runs unconfined)."""
    folder = Path(env["HOME"]) / ".config" / "agent"
    folder.mkdir(parents=True, exist_ok=True)
    allow = {"permissions": {"allow": ["bash(ls *)"]}}
    (folder / "settings.json").write_text(json.dumps(allow), encoding="utf-8")
    env = {**env, "PYTHONPATH": str(REPO), "AGENT_NO_SERVER": "1"}
    done = subprocess.run(
        [sys.executable, "-c", RUN, left_out],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = done.stderr.splitlines()
    loaded = next((line for line in lines if line.startswith("LOADED")), "LOADED")
    return done.returncode, done.stderr, set(loaded.split()[1:])


def _bash_result(fake_model: FakeAnthropic) -> str:
    content = fake_model.bodies()[-1]["messages"][-1]["content"]
    results = [b for b in content if b.get("type") == "tool_result"]
    assert len(results) == 1, content
    result = results[0]["content"]
    parts = result if isinstance(result, list) else [{"text": result}]
    return "".join(str(part.get("text", "")) for part in parts)


def _namespace(fake_model: FakeAnthropic) -> int:
    """The pid namespace the command ran in (its inode), as it printed it."""
    text = _bash_result(fake_model)
    assert text.endswith("/proc/self/ns/pid\n\nexit code: 0"), text
    return int(text.split()[0])


def test_without_the_extension_a_plain_run_works_unconfined(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    fake_model.script.tool_use("bash", command=NAMESPACE).text("done")
    code, err, loaded = _run(fake_env, ws, "sandbox")
    assert code == 0, err
    # the extension was never made (goals' check_run still imports the sandbox's own modules)
    assert not {m for m in loaded if m.startswith("agent_cli.ext.sandbox.plugin")}, err
    assert "sandbox off" not in err  # no notice: nothing confines, as with `off`
    assert _namespace(fake_model) == Path("/proc/self/ns/pid").stat().st_ino  # as `off` runs it


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_what_confines_a_command_is_imported_when_the_first_one_runs(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    fake_model.script.text("nothing to run")
    code, err, loaded = _run(fake_env, ws, "")
    assert code == 0, err
    assert "agent_cli.ext.sandbox.probe" in loaded  # `agent run` asked the service: its notice
    assert not COMMAND_MODULES & loaded, err
    fake_model.script.tool_use("bash", command=NAMESPACE).text("done")
    code, err, loaded = _run(fake_env, ws, "")
    assert code == 0, err
    assert loaded >= COMMAND_MODULES, err
    assert _namespace(fake_model) != Path("/proc/self/ns/pid").stat().st_ino  # confined


def test_a_required_sandbox_without_the_extension_runs_nothing(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = tmp_path / "outside.txt"
    ctx = make_ctx(ws, Settings.model_validate({"sandbox": {"mode": "required"}}))
    bash = Bash()  # no shell wrapper: the sandbox extension is not there
    args = BashInput(command=f"touch {outside}")
    assert not bash.unconfined(args, ctx)  # never asked as "outside the sandbox" either
    result = call(ToolRegistry(base_tools()), ctx, "bash", command=f"touch {outside}")
    assert result.is_error
    assert result.content.startswith("Not run: sandbox.mode is required"), result.content
    assert not outside.exists()


def test_dormant_until_a_command_asks_for_its_port(tmp_path: Path) -> None:
    ours = [d for d in BUILTINS if d.name == "sandbox"]
    assert [d.ports for d in ours] == [("shell_wrapper",)]
    elsewhere = discover(path=[], builtins=ours, asking=Asking(frozenset(), tmp_path, "batch"))
    assert elsewhere.names() == []
    assert list(elsewhere.dormant) == ["sandbox"]
    run = discover(path=[], builtins=ours, asking=Asking(frozenset(), tmp_path, "run"))
    assert run.names() == ["sandbox"]
    chat = discover(path=[], builtins=ours, asking=Asking(frozenset(), tmp_path, "chat"))
    assert chat.names() == ["sandbox"]
    context = ExtensionContext("sandbox", tmp_path, Paths(tmp_path), Settings(), "s-1")
    wrapper = elsewhere.port("shell_wrapper", lambda name: context)
    assert isinstance(wrapper, ShellWrapper)
    assert elsewhere.names() == ["sandbox"]
