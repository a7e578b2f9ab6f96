"""What a subagent runs in: the child loop (injected by the composition root, since the loop
stands above this floor) and the system prompt it starts under."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Protocol

from agent_cli.core.events import Event
from agent_cli.core.messages import Block
from agent_cli.core.prompts.system import build_system, build_system_text, environment_section
from agent_cli.core.prompts.templates import load_prompt
from agent_cli.model.client import ModelClient
from agent_cli.policy.turn_hooks import TurnHooks
from agent_cli.session.state import Session
from agent_cli.subagent.profile import SubagentProfile
from agent_cli.tools.registry import ToolRegistry

HANDING_IN = "# Handing in"


class ChildLoop(Protocol):
    """The loop a subagent runs in (the loop's Agent; injected, since the loop is built above)."""

    session: Session
    system: list[Block]
    max_turns: int | None

    def run_turn(self, prompt: str) -> AsyncIterator[Event]: ...


class ChildFactory(Protocol):
    def __call__(
        self,
        *,
        session: Session,
        client: ModelClient,
        registry: ToolRegistry,
        system: list[Block],
        max_turns: int | None,
        caller: str,
        stop_after_round: Callable[[], bool],
        turn_hooks: TurnHooks | None,
    ) -> ChildLoop: ...


def subagent_system(workspace: Path, profile: SubagentProfile | None) -> list[Block]:
    """The general subagent prompt; a type's body instead, then how to hand in the note."""
    if profile is None or not profile.system:
        return build_system(workspace, "subagent.md", [])
    handing_in = load_prompt("subagent.md", workspace).partition(HANDING_IN)[2]
    return build_system_text(
        [profile.system.strip(), environment_section(workspace), HANDING_IN + handing_in]
    )
