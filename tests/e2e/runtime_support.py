"""A Runtime built by the composition root as the front ends build it, in this process, against
the fake model (use with `sdk_env`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agent_cli.core.events import Event
from agent_cli.core.options import Options
from agent_cli.runtime.build import build_runtime
from agent_cli.runtime.runtime import Runtime


def make_runtime(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, resume: str | None = None
) -> Runtime:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(workspace / "config"))  # no user settings
    options = Options(workspace=workspace, permission_mode="bypass", resume=resume)
    return build_runtime(options, quiet=True)


async def drive(
    runtime: Runtime, prompt: str, on_event: Callable[[Event], None] | None = None
) -> list[Event]:
    """One turn, then the exit (jobs stopped, client closed)."""
    events: list[Event] = []
    try:
        async for event in runtime.turn(prompt):
            events.append(event)
            if on_event is not None:
                on_event(event)
    finally:
        await runtime.aclose(wait=False)
    return events
