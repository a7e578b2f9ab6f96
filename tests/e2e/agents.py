"""The in-process agent of the end-to-end tests, wired by the composition root as `agent run`
wires it (use with the `sdk_env` fixture, so the SDK talks to the fake model server)."""

from __future__ import annotations

import os
from pathlib import Path

from agent_cli.core.events import Event
from agent_cli.core.files.paths import Paths
from agent_cli.core.options import Options
from agent_cli.core.settings.schema import Settings
from agent_cli.loop.agent import Agent
from agent_cli.model.call_log import CallLog
from agent_cli.runtime.assembly import assemble
from agent_cli.runtime.build import make_client
from agent_cli.runtime.extensions.registry import discover
from agent_cli.runtime.opening import open_session
from agent_cli.runtime.ports import Assembly
from tests.conftest import FAKE_API_KEY


def bypass(**fields: object) -> Settings:
    """Settings that let shell commands run unasked (a headless default mode denies them)."""
    return Settings.model_validate({**fields, "permissions": {"mode": "bypass"}})


def make_assembly(
    workspace: Path, settings: Settings | None = None, *, resume: str | None = None
) -> Assembly:
    """A new session in `workspace` (or the one `resume` names): agent and memory. Calls are
    logged to the workspace's logs/llm-calls.jsonl."""
    settings = settings or Settings()
    if os.environ.get(
        "AGENT_SANDBOX"
    ):  # as the composition root reads it (the sandbox_off fixture)
        sandbox = {**settings.sandbox.model_dump(), "mode": os.environ["AGENT_SANDBOX"]}
        settings = Settings.model_validate({**settings.model_dump(), "sandbox": sandbox})
    options = Options(workspace=workspace, resume=resume)
    paths = Paths(workspace)
    session, _ = open_session(options, settings, paths)
    client = make_client(settings, CallLog(paths.llm_calls, FAKE_API_KEY[-4:]))
    # every built-in, as `agent run` loads those its workspace and settings ask for
    return assemble(session, client, options, extensions=discover([]))


def make_agent(
    workspace: Path, settings: Settings | None = None, *, resume: str | None = None
) -> Agent:
    return make_assembly(workspace, settings, resume=resume).agent


async def collect(agent: Agent, prompt: str) -> list[Event]:
    """One turn's events; the client is closed after it."""
    try:
        return [event async for event in agent.run_turn(prompt)]
    finally:
        await agent.client.close()
