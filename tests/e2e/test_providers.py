"""Bedrock and Vertex AI through the SDK's own clients (issue 52): `agent run` with
AGENT_PROVIDER against a local fake of each platform that answers only what that platform
accepts (Bedrock: a SigV4 signature that verifies with the test's key, the model in the path,
AWS event-stream frames back; Vertex AI: the bearer token, `:streamRawPredict`). No network,
no real credentials."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.helpers import run_agent
from tests.e2e.warm import Via, Warm
from tests.fake_model.platforms import (
    AWS_KEY_ID,
    AWS_REGION,
    AWS_SECRET,
    VERTEX_PROJECT,
    VERTEX_REGION,
    VERTEX_TOKEN,
    PlatformFake,
)

SCRUBBED = ("ANTHROPIC_", "AWS_", "CLOUD_ML_REGION", "GOOGLE_", "AGENT_PROVIDER", "AGENT_MODEL")


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED)}
    env.pop("XDG_CONFIG_HOME", None)
    return {**env, "HOME": str(home), "NO_COLOR": "1", **extra}


@pytest.fixture
def bedrock() -> Iterator[PlatformFake]:
    server = PlatformFake("bedrock")
    with server:
        yield server
    assert not server.violations, server.violations


@pytest.fixture
def vertex() -> Iterator[PlatformFake]:
    server = PlatformFake("vertex")
    with server:
        yield server
    assert not server.violations, server.violations


def bedrock_env(server: PlatformFake, tmp_path: Path) -> dict[str, str]:
    return _env(
        tmp_path,
        AGENT_PROVIDER="bedrock",
        ANTHROPIC_BEDROCK_BASE_URL=server.platform_url,
        AWS_ACCESS_KEY_ID=AWS_KEY_ID,
        AWS_SECRET_ACCESS_KEY=AWS_SECRET,
        AWS_REGION=AWS_REGION,
        AWS_EC2_METADATA_DISABLED="true",  # never ask an instance for credentials
    )


def vertex_env(server: PlatformFake, tmp_path: Path) -> dict[str, str]:
    return _env(
        tmp_path,
        AGENT_PROVIDER="vertex",
        ANTHROPIC_VERTEX_BASE_URL=server.platform_url,
        ANTHROPIC_VERTEX_ACCESS_TOKEN=VERTEX_TOKEN,
        ANTHROPIC_VERTEX_PROJECT_ID=VERTEX_PROJECT,
        CLOUD_ML_REGION=VERTEX_REGION,
    )


def test_bedrock_run_signs_names_the_model_in_the_path_and_reads_event_stream(
    bedrock: PlatformFake, tmp_path: Path
):
    (tmp_path / "a.txt").write_text("alpha\n")
    bedrock.script.tool_use("read_file", path="a.txt").text("It says alpha.")
    proc = run_agent(bedrock_env(bedrock, tmp_path), tmp_path, "run", "-p", "read a.txt")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "It says alpha."
    sent = bedrock.platform_requests
    assert [(r.model, r.streamed) for r in sent] == [
        ("global.anthropic.claude-sonnet-4-6", True)  # the default model, as Bedrock names it
    ] * 2
    assert all(r.path.endswith("/invoke-with-response-stream") for r in sent)
    tool_result = bedrock.bodies()[1]["messages"][-1]["content"][0]
    assert tool_result["type"] == "tool_result"
    assert "alpha" in str(tool_result["content"])  # the tool ran once, its result went back


def test_bedrock_alias_points_anywhere(bedrock: PlatformFake, tmp_path: Path):
    bedrock.script.text("small")
    env = {**bedrock_env(bedrock, tmp_path), "ANTHROPIC_DEFAULT_HAIKU_MODEL": "my-profile"}
    proc = run_agent(env, tmp_path, "run", "--model", "haiku", "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert [r.model for r in bedrock.platform_requests] == ["my-profile"]


def test_vertex_run_sends_the_token_to_stream_raw_predict(vertex: PlatformFake, tmp_path: Path):
    vertex.script.text("from vertex")
    proc = run_agent(vertex_env(vertex, tmp_path), tmp_path, "run", "-m", "haiku", "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "from vertex"
    [sent] = vertex.platform_requests
    assert sent.path.endswith("/models/claude-haiku-4-5@20251001:streamRawPredict")
    assert sent.model == "claude-haiku-4-5@20251001"


@pytest.mark.parametrize(
    ("provider", "unset", "said"),
    [
        ("bedrock", "AWS_REGION", "provider bedrock: set AWS_REGION"),
        ("bedrock", "AWS_SECRET_ACCESS_KEY", "provider bedrock: Partial credentials found in env"),
        ("bedrock", "AWS_ACCESS_KEY_ID", "provider bedrock: no AWS credentials"),
        ("vertex", "CLOUD_ML_REGION", "provider vertex: set CLOUD_ML_REGION"),
        (
            "vertex",
            "ANTHROPIC_VERTEX_PROJECT_ID",
            "provider vertex: set ANTHROPIC_VERTEX_PROJECT_ID",
        ),
        ("foundry", "", "provider foundry: set ANTHROPIC_FOUNDRY_API_KEY"),
    ],
)
def test_missing_credentials_are_one_line_exit_2(
    bedrock: PlatformFake, tmp_path: Path, provider: str, unset: str, said: str
):
    env = {**bedrock_env(bedrock, tmp_path), **vertex_env(bedrock, tmp_path)}
    env = {k: v for k, v in env.items() if k != unset}
    proc = run_agent({**env, "AGENT_PROVIDER": provider}, tmp_path, "run", "-p", "hi")
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.strip().splitlines()  # one line, no traceback
    assert line.startswith(f"agent: {said}")
    assert bedrock.platform_requests == []


def test_bad_provider_is_exit_2_naming_it(tmp_path: Path):
    proc = run_agent(_env(tmp_path, AGENT_PROVIDER="azure"), tmp_path, "run", "-p", "hi")
    assert proc.returncode == 2
    assert "bad setting 'provider'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bedrock_through_the_warm_process(bedrock: PlatformFake, tmp_path: Path):
    """The warm process (started without any provider in its own environment) serves a run
    asking for Bedrock with the run's variables."""
    warm = Warm(_env(tmp_path))
    warm.start()
    try:
        bedrock.script.text("warm bedrock")
        via = Via("warm", bedrock_env(bedrock, tmp_path), warm)
        proc = via.run(tmp_path, "run", "-p", "hi")
    finally:
        warm.stop()
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "warm bedrock"
    assert [r.model for r in bedrock.platform_requests] == ["global.anthropic.claude-sonnet-4-6"]


@pytest.mark.skipif(
    importlib.util.find_spec("google") is not None
    and importlib.util.find_spec("google.auth") is not None,
    reason="google-auth is installed here",
)
def test_vertex_without_a_token_or_google_auth_names_the_extra(tmp_path: Path):
    env = _env(tmp_path, AGENT_PROVIDER="vertex", CLOUD_ML_REGION="global")
    proc = run_agent(env, tmp_path, "run", "-p", "hi")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "agent: provider vertex needs google-auth: pip install 'agent-cli[vertex]'"
    )
