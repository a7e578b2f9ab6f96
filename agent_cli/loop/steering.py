"""What the inbox holds reaches the model: before a request of the main agent (every tool_use
has its tool_result by then), the job notices and the user's queued messages become user text
after the results (SPEC §16), and are stored in history like any message (a notice recorded
as what gave it: a job, another session's message)."""

from __future__ import annotations

from agent_cli.core import history
from agent_cli.core.events import Steered
from agent_cli.core.text.redaction import redact
from agent_cli.core.text.unicode_safe import safe_text
from agent_cli.loop.shown import record_notice
from agent_cli.session.state import Session


def deliver(session: Session) -> Steered | None:
    notices, queued = session.tool_ctx.inbox.take()
    if not notices and not queued:
        return None
    secrets = session.tool_ctx.secrets  # a job's last lines are its output: redacted like it
    told = [safe_text(redact(text, secrets)) for _, text in notices]
    for (source, _), text in zip(notices, told, strict=True):
        record_notice(session, source, text)  # the agent's words, never drawn as the user's
    for text in [*told, *queued]:
        session.append(history.user_text(text))
    session.messages = history.repair(session.messages)  # merged into the user turn
    return Steered(texts=queued, notices=len(notices))


def waiting(session: Session) -> bool:
    """The user queued a message the model has not seen: the turn goes on for it."""
    return bool(session.tool_ctx.inbox.queued)
