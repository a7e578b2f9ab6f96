"""A test run is a test run however it is spelled (issue 57, item 1): `python3 -m unittest`,
`python3.11 -m pytest`, a venv's `.../bin/python3`, `py.test`, behind `FOO=1`, `env`,
`timeout`, `bash -c`, `uv run`, `poetry run`, `hatch run`, `pipx run`, `nox -s`, `tox -e`.

Each spelling really runs a tiny test project through `agent run` against the fake model: run
failing, "All tests pass." is marked unverified *because that run exited 1*; run passing after
the fix, it is verified. Runners not installed here (uv, poetry, hatch, pipx, nox, tox, pypy3)
are small stand-ins in the workspace's bin/ that do what the runner does with these arguments:
run the command after `run` (or the project's tests), and exit with its status."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_cli.ext.goals.claims import COMMANDS, matches
from tests.e2e.helpers import json_lines
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli

pytestmark = pytest.mark.timeout(240)  # real test runs inside: slow on a loaded machine
VERSIONED = f"python{sys.version_info.major}.{sys.version_info.minor}"
VENV_PYTHON3 = str(Path(sys.executable).parent / "python3")
TESTS = "-p no:cacheprovider -q test_v.py"
SPELLINGS = [
    "python3 -m unittest -q",
    f"python3 -m pytest {TESTS}",
    f"{VERSIONED} -m pytest {TESTS}",
    f"{VENV_PYTHON3} -m pytest {TESTS}",
    f"py.test {TESTS}",
    f"pypy3 -m pytest {TESTS}",
    "FOO=1 python3 -m unittest",
    f"env PYTHONDONTWRITEBYTECODE=1 python3 -X dev -m pytest {TESTS}",
    f"timeout 120 python3 -m pytest {TESTS}",
    f"bash -c 'cd . && python3 -m pytest {TESTS}'",
    f"uv run python3 -m pytest {TESTS}",
    f"poetry run pytest {TESTS}",
    "hatch run python3 -m unittest",
    f"pipx run pytest {TESTS}",
    "nox -s tests",
    "tox -e py3",
]
RUN_AFTER = 'shift; exec "$@"\n'  # `X run CMD...`: CMD, in the project's environment
STAND_INS = {
    "uv": RUN_AFTER,
    "poetry": RUN_AFTER,
    "hatch": RUN_AFTER,
    "pipx": RUN_AFTER,
    "nox": f"exec python3 -m pytest {TESTS}\n",  # its session "tests" runs them
    "tox": f"exec python3 -m pytest {TESTS}\n",  # its env "py3" runs them
    "pypy3": 'exec python3 "$@"\n',
}
TEST_FILE = (
    "import unittest\n\n\n"
    "class TestV(unittest.TestCase):\n"
    "    def test_v(self):\n"
    "        with open('v.txt') as f:\n"
    "            self.assertEqual(f.read().strip(), 'ok')\n"
)


@pytest.fixture
def project(tmp_path: Path, fake_env: dict[str, str], fake_model: FakeAnthropic) -> Path:
    """A failing test project, with the runners' stand-ins and the suite's python3 on PATH."""
    from tests.e2e.memory_support import episode_json, generator_route

    generator_route(fake_model).respond(lambda body: episode_json(), times=10)
    (tmp_path / "test_v.py").write_text(TEST_FILE)
    (tmp_path / "v.txt").write_text("bad\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in STAND_INS.items():
        path = bin_dir / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    entries = [str(bin_dir), str(Path(sys.executable).parent), fake_env["PATH"]]
    fake_env["PATH"] = os.pathsep.join(entries)
    return tmp_path


def _claim(env: dict[str, str], ws: Path) -> dict[str, Any]:
    args = ("--permission-mode", "bypass", "--output-format", "json")
    proc = run_cli(env, ws, "run", "-p", "make the tests pass", *args)
    assert "Traceback" not in proc.stderr, proc.stderr
    (result,) = json_lines(proc.stdout)
    (claim,) = result["claims"]
    return dict(claim)


@pytest.mark.parametrize("command", SPELLINGS)
def test_a_failing_run_is_the_evidence_against_the_claim(
    command: str, project: Path, fake_env: dict[str, str], fake_model: FakeAnthropic
) -> None:
    fake_model.script.tool_use("bash", command=command).text("Done. All tests pass.")
    claim = _claim(fake_env, project)
    assert claim["verified"] is False
    assert claim["evidence"].startswith(f"`{command}` exited 1 at "), claim["evidence"]


@pytest.mark.parametrize("command", SPELLINGS)
def test_a_passing_run_after_the_fix_verifies_the_claim(
    command: str, project: Path, fake_env: dict[str, str], fake_model: FakeAnthropic
) -> None:
    script = fake_model.script
    script.tool_use("bash", command=command)
    script.tool_use("write_file", path="v.txt", content="ok\n")
    script.tool_use("bash", command=command).text("Fixed v.txt. All tests pass.")
    claim = _claim(fake_env, project)
    assert claim["verified"] is True, claim["evidence"]
    assert claim["evidence"].startswith(f"`{command}` exited 0 at ")


@pytest.mark.parametrize(
    "command",
    [
        "pip install pytest",
        "python3 -m pip install pytest",
        "uv pip install pytest",
        "echo pytest",
        "grep -rn pytest .",
        "command -v py.test",
        "cat pytest.ini",
        "echo 'a && pytest'",
        "python3 tool.py -m pytest",
        "python3 -c 'import pytest'",
    ],
)
def test_a_command_that_only_names_a_runner_is_no_run(command: str) -> None:
    """A passing `pip install pytest` after a failing run must not verify the claim."""
    assert not matches(command, COMMANDS["tests"])


def test_modules_and_wrappers_count_for_the_other_kinds_too() -> None:
    assert matches("python3 -m mypy --strict pkg", COMMANDS["typecheck"])
    assert matches("uv run ruff check .", COMMANDS["lint"])
    assert matches(".venv/bin/python3.12 -m build", COMMANDS["build"])
    assert matches("bash ./run_checks.sh --all", ["./run_checks.sh"])
    assert matches("coverage run -m pytest", COMMANDS["tests"])
    assert matches("python3 -m coverage run -m unittest", COMMANDS["tests"])
