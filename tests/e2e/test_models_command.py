"""`agent models` (issue 52): the endpoint's own list (GET /v1/models) with the model in use
marked and the aliases naming each; an endpoint without that list (404) or a platform (whose
SDK client has none) gives the models the agent knows there, never an error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.helpers import run_agent
from tests.fake_model.models_list import ModelsFake


@pytest.fixture
def listed() -> Iterator[ModelsFake]:
    server = ModelsFake(["claude-opus-4-6", "claude-sonnet-4-6", "claude-haiku-4-5"])
    with server:
        yield server


@pytest.fixture
def unlisted() -> Iterator[ModelsFake]:
    server = ModelsFake(None)
    with server:
        yield server


def test_models_lists_the_endpoints_own_marking_the_one_in_use(
    listed: ModelsFake, fake_env: dict[str, str], tmp_path: Path
):
    env = {**fake_env, "ANTHROPIC_BASE_URL": listed.base_url}
    proc = run_agent({**env, "AGENT_MODEL": "haiku"}, tmp_path, "models")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        f"Models ({listed.base_url}/v1/models); * in use:",
        "  claude-opus-4-6  (opus)",
        "  claude-sonnet-4-6  (sonnet)",
        "* claude-haiku-4-5  (haiku)",
    ]
    assert listed.list_requests == 1


def test_an_endpoint_without_the_list_gets_the_known_models(
    unlisted: ModelsFake, fake_env: dict[str, str], tmp_path: Path
):
    env = {**fake_env, "ANTHROPIC_BASE_URL": unlisted.base_url, "AGENT_MODEL": "qwen3:4b"}
    proc = run_agent(env, tmp_path, "models", "--json")
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    source = f"{unlisted.base_url} has no models list (404): the models the agent knows"
    assert found["source"] == source
    assert found["in_use"] == "qwen3:4b"
    assert {"claude-sonnet-4-6", "claude-opus-4-6", "claude-haiku-4-5"} <= set(found["models"])
    plain = run_agent(env, tmp_path, "models")
    assert plain.stdout.splitlines()[-1] == "* qwen3:4b  [not listed by the endpoint]"


def test_bedrock_lists_its_own_ids(fake_env: dict[str, str], tmp_path: Path):
    env = {**fake_env, "AGENT_PROVIDER": "bedrock"}  # nothing is asked: no credentials needed
    proc = run_agent(env, tmp_path, "models")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "Models (the models the agent knows on bedrock); * in use:"
    assert "* global.anthropic.claude-sonnet-4-6  (sonnet)" in lines
    assert "  global.anthropic.claude-haiku-4-5-20251001-v1:0  (haiku)" in lines
