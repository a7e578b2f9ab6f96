"""The port through which the loop runs hooks around a turn (SPEC §12): `user_prompt_submit`
may veto the prompt before anything is stored; `stop` runs when the turn ends."""

from __future__ import annotations

from typing import Protocol

from agent_cli.events import ErrorEvent, Event, TurnEnd
from agent_cli.messages import Block


class TurnHooks(Protocol):
    async def before_turn(self, blocks: list[Block]) -> list[Event]:
        """Empty to go on; otherwise the events that end the vetoed turn."""
        ...

    async def after_turn(self, end: TurnEnd) -> None: ...


def prompt_text(blocks: list[Block]) -> str:
    return "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")


def veto_events(reason: str) -> list[Event]:
    message = f"The prompt was vetoed by a user_prompt_submit hook: {reason}"
    return [
        ErrorEvent(kind="HookVetoError", message=message, exit_code=1),
        TurnEnd(stop="error", text="", rounds=0),
    ]
