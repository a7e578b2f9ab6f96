"""What one turn counts as it goes (requests, continuations, pauses, the reply's text) and the
decision after a reply without tool calls: whether the turn goes on or is done."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agent_cli.core import history
from agent_cli.core.events import TurnEnd
from agent_cli.loop import server_turn, steering
from agent_cli.model.client import ModelReply
from agent_cli.session.state import Session

CONTINUE_PROMPT = (
    "Your previous reply was cut off by the output token limit. "
    "Continue exactly where it stopped, without repeating what you already wrote."
)


@dataclass
class TurnState:
    requests: int = 0
    continuations: int = 0
    pauses: int = 0
    text_parts: list[str] = field(default_factory=list)
    reply: ModelReply | None = None  # the last request's, once it has come whole

    def end(self, stop: Literal["done", "max_turns", "error"]) -> TurnEnd:
        return TurnEnd(stop=stop, text="".join(self.text_parts), rounds=self.requests)


def goes_on(turn: TurnState, reply: ModelReply, session: Session, caller: str) -> bool:
    """After a text-only reply: a pause sent back, a cut-off reply continued, or steering typed
    while the model answered (the main agent reads it before the turn ends) keep the turn going."""
    if server_turn.paused(reply.stop_reason, turn.pauses, session):  # sent back: goes on
        turn.pauses += 1
        return True
    if (
        reply.stop_reason == "max_tokens"
        and turn.continuations < session.settings.max_continuations
    ):
        turn.continuations += 1
        session.append(history.user_text(CONTINUE_PROMPT))
        return True
    return caller == "main" and steering.waiting(session)
