"""The in-process agent of the end-to-end tests, wired by the composition root as `agent run`
wires it (use with the `sdk_env` fixture, so the SDK talks to the fake model server)."""

from __future__ import annotations

import os
from pathlib import Path

from agent_cli.core.events import Event
from agent_cli.core.files.paths import Paths
from agent_cli.core.options import Options
from agent_cli.core.settings.schema import Settings
from agent_cli.ext.jobs.board import JobBoard
from agent_cli.ext.jobs.service import JobsService
from agent_cli.loop.agent import Agent
from agent_cli.model.call_log import CallLog
from agent_cli.runtime.assembly import assemble
from agent_cli.runtime.build import make_client
from agent_cli.runtime.extensions.registry import BUILTINS, Extensions, discover
from agent_cli.runtime.opening import open_session
from agent_cli.runtime.ports import Assembly
from tests.conftest import FAKE_API_KEY


def bypass(**fields: object) -> Settings:
    """Settings that let shell commands run unasked (a headless default mode denies them)."""
    return Settings.model_validate({**fields, "permissions": {"mode": "bypass"}})


def with_jobs() -> Extensions:
    """The background-jobs extension alone, as a run has it."""
    return discover(path=[], builtins=[d for d in BUILTINS if d.name == "jobs"])


def make_assembly(
    workspace: Path, settings: Settings | None = None, *, resume: str | None = None
) -> Assembly:
    """A new session in `workspace` (or the one `resume` names): agent and memory. Calls are
    logged to the workspace's logs/llm-calls.jsonl."""
    return make_assembly_with_jobs(workspace, settings, resume=resume)[0]


def make_assembly_with_jobs(
    workspace: Path, settings: Settings | None = None, *, resume: str | None = None
) -> tuple[Assembly, JobsService]:
    """`make_assembly`, and the background jobs of its session (a board of its own)."""
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
    jobs = JobsService.over(JobBoard(paths, settings.jobs))
    services = {"jobs": jobs}.get
    assembly = assemble(session, client, options, extensions=with_jobs(), services=services)
    return assembly, jobs


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
