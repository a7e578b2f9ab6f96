"""Auto mode plugs in as the extension `auto` (issue 54 on issue 58's contract): the permission
check asks for the port "permission_reviewer" in auto mode alone, so a plain run never imports
it; without the extension auto mode asks what default asks (headless: denied, no reviewer).
Runs go through `agent run` in a process of their own, against the fake model."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agent_cli.runtime.extensions.discovery import Asking
from agent_cli.runtime.extensions.registry import BUILTINS, discover
from tests.fake_model import FakeAnthropic

REPO = Path(__file__).resolve().parents[3]
# `agent run ARGS...` in-process with the built-ins less those named in argv[1]; the modules
# of auto mode it imported are said on stderr
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
code = run_in_process(["run", *sys.argv[2:]])
loaded = sorted(m for m in sys.modules if m.startswith("agent_cli.ext.auto"))
sys.stderr.write("LOADED " + " ".join(loaded) + "\\n")
sys.exit(code)
"""


def _run(env: dict[str, str], ws: Path, left_out: str, *args: str) -> tuple[int, str, set[str]]:
    env = {**env, "PYTHONPATH": str(REPO), "AGENT_NO_SERVER": "1", "AGENT_SANDBOX": "off"}
    done = subprocess.run(
        [sys.executable, "-c", RUN, left_out, *args],
        cwd=ws, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    lines = done.stderr.splitlines()
    loaded = next((line for line in lines if line.startswith("LOADED")), "LOADED")
    return done.returncode, done.stderr, set(loaded.split()[1:])


def test_auto_is_dormant_until_a_session_in_auto_mode_asks_for_its_reviewer(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    found = discover(path=(), asking=Asking(command="run", workspace=tmp_path))
    assert "auto" in found.dormant
    assert "auto" not in found.names()
    fake_model.script.tool_use("bash", command="touch x.txt").text("done")
    code, err, loaded = _run(fake_env, tmp_path, "", "-p", "go")
    assert code == 0, err
    assert loaded == set()  # default mode: nothing of auto mode imported
    fake_model.route(lambda b: (b.get("tool_choice") or {}).get("name") == "verdict").tool_use(
        "verdict", decision="allow", reason="ok"
    )
    fake_model.script.tool_use("bash", command="touch y.txt").text("done")
    code, err, loaded = _run(fake_env, tmp_path, "", "--permission-mode", "auto", "-p", "go")
    assert code == 0, err
    assert {"agent_cli.ext.auto", "agent_cli.ext.auto.service"} <= loaded
    assert (tmp_path / "y.txt").exists()


def test_without_the_extension_auto_mode_asks_what_default_asks(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    assert any(d.name == "auto" for d in BUILTINS)
    fake_model.script.tool_use("bash", command="touch x.txt").text("done")
    code, err, loaded = _run(fake_env, tmp_path, "auto", "--permission-mode", "auto", "-p", "go")
    assert code == 0, err
    assert loaded == set()
    assert not (tmp_path / "x.txt").exists()  # headless: denied, as default denies it
    assert not [b for b in fake_model.bodies() if "tool_choice" in b]  # no reviewer
    content = fake_model.bodies()[-1]["messages"][-1]["content"]
    assert "no one can be asked" in str(content)
