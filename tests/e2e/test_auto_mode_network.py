"""Auto mode answers a sandboxed command's unlisted network host, the question `default` asks
most often under the sandbox: in `agent run` nobody could be asked, so the proxy refused every
such host and auto mode never saw it. The fake server plays the model and the reviewer; the
command runs under the real bubblewrap, through the agent's proxy, to a page on 127.0.0.1."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.helpers import run_agent
from tests.e2e.test_auto_mode import AUTO, _main, _results, _reviews, _verdicts
from tests.fake_model import FakeAnthropic, Script

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")


@pytest.fixture
def reviewer(fake_model: FakeAnthropic) -> Script:
    return fake_model.route(lambda body: (body.get("tool_choice") or {}).get("name") == "verdict")


def _fetch(fake_model: FakeAnthropic, port: int) -> str:
    command = f"curl -sS http://127.0.0.1:{port}/ || echo no page"
    fake_model.script.tool_use("bash", command=command).text("Done.")
    return command


def test_an_unlisted_host_the_reviewer_allows_is_reached(
    fake_model: FakeAnthropic, fake_env: dict[str, str], reviewer: Script, tmp_path: Path,
    port: int,
) -> None:  # fmt: skip
    reviewer.tool_use("verdict", decision="allow", reason="the user asked to fetch the page")
    command = _fetch(fake_model, port)
    proc = run_agent(fake_env, tmp_path, *AUTO, "fetch the local page")
    assert proc.returncode == 0, proc.stderr
    (review,) = _reviews(fake_model)
    assert f"127.0.0.1:{port}" in str(review["messages"])
    (result,) = _results(_main(fake_model)[-1])
    assert "hello there" in str(result["content"])
    (verdict,) = _verdicts(proc.stdout)
    assert verdict["allowed"] is True
    assert verdict["call"] == command


def test_an_unlisted_host_the_reviewer_denies_is_refused_with_its_reason(
    fake_model: FakeAnthropic, fake_env: dict[str, str], reviewer: Script, tmp_path: Path,
    port: int,
) -> None:  # fmt: skip
    reviewer.tool_use("verdict", decision="deny", reason="nothing the user asked needs it")
    _fetch(fake_model, port)
    proc = run_agent(fake_env, tmp_path, *AUTO, "fetch the local page")
    assert proc.returncode == 0, proc.stderr
    assert len(_reviews(fake_model)) == 1
    (result,) = _results(_main(fake_model)[-1])
    content = str(result["content"])
    assert "hello there" not in content
    assert f"[sandbox: network request refused: 127.0.0.1:{port}: Refused in auto mode" in content
    assert "nothing the user asked needs it" in content
