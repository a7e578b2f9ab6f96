"""Shared fixtures."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from tests.fake_model import FakeAnthropic

FAKE_API_KEY = "sk-test-" + "k" * 32

# Every `agent` a test starts imports ~350 modules of this tree. Where PYTHONDONTWRITEBYTECODE is
# set (this machine, its CI) each of those hundreds of launches compiled them all again: a
# quarter of a short run's CPU (bench/test_launch.py). The suite's processes keep their bytecode
# in a cache of its own instead, outside the tree; the xdist workers and every child inherit it.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
os.environ.setdefault(
    "PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / f"agent-tests-pyc-{os.getuid()}")
)

# Property tests: CI (.ci/run exports HYPOTHESIS_PROFILE=ci) runs 2,500 examples per test (the
# context pipeline's four property tests alone make 10,000); locally a quicker default.
_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large]


@pytest.hookimpl(optionalhook=True)  # a run with `-p no:xdist` has no such hook
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: half as many workers again as this process may use cores. Most of the suite
    waits (a pty's next frame, a tmux pane, a subprocess's answer): with one worker a core the
    CPU sat a third idle, and on 2 cores the suite took 824 s against 644 s with 3 workers."""
    return max(2, len(os.sched_getaffinity(0)) * 3 // 2)


hypothesis_settings.register_profile(
    "ci", max_examples=2_500, deadline=None, suppress_health_check=_SLOW_OK, print_blob=True
)
hypothesis_settings.register_profile(
    "dev", max_examples=150, deadline=None, suppress_health_check=_SLOW_OK
)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(autouse=True)
def _in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `agent` a test starts runs in-process unless the test opts into the warm process
    (tests/e2e/warm.py): none may start one in the user's real runtime directory."""
    monkeypatch.setenv("AGENT_NO_SERVER", "1")
    # nor a language server found on the developer's PATH: a test configures the ones it wants
    monkeypatch.setenv("AGENT_LSP_BUILTIN", "0")


@pytest.fixture
def fake_model() -> Iterator[FakeAnthropic]:
    """A started fake model server; the test fails if any request broke SPEC §16."""
    with FakeAnthropic() as server:
        yield server
    if server.violations:
        pytest.fail("fake model saw bad requests:\n" + "\n".join(map(str, server.violations)))


@pytest.fixture
def fake_env(fake_model: FakeAnthropic, tmp_path: Path) -> dict[str, str]:
    """Environment for running the agent against ``fake_model``, with a scratch HOME."""
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ)
    for name in ("ANTHROPIC_AUTH_TOKEN", "AGENT_TRUST_WORKSPACE", "XDG_CONFIG_HOME"):
        env.pop(name, None)
    env.update(
        ANTHROPIC_BASE_URL=fake_model.base_url,
        ANTHROPIC_API_KEY=FAKE_API_KEY,
        HOME=str(home),
        NO_COLOR="1",
    )
    return env


@pytest.fixture
def sdk_env(fake_model: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real SDK, in this process, pointed at `fake_model` with a fake key."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_model.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_API_KEY)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)


@pytest.fixture
def sandbox_off(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """`sandbox.mode: off` for a test that tracks a command's pid or expects a bash write to be
    asked (inside the sandbox `echo $$` is the pid namespace's, and a write runs unasked)."""
    monkeypatch.setenv("AGENT_SANDBOX", "off")
    if "fake_env" in request.fixturenames:
        request.getfixturevalue("fake_env")["AGENT_SANDBOX"] = "off"
