"""/btw: a side question about the conversation, answered in one request without tools, and
kept out of the history (the next main request holds nothing of it).

The request is the main one's prefix (system, tools, messages: the prompt cache serves it)
with the question appended; the tools are offered, since the history's calls need their
definitions, but `tool_choice: none` lets none be called."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_cli.core.errors import ModelError, UsageError
from agent_cli.core.history import repair, user_text
from agent_cli.model.client import Final, ModelRequest

if TYPE_CHECKING:
    from agent_cli.loop.agent import Agent
    from agent_cli.runtime.runtime import Runtime
    from agent_cli.session.state import Session

CALLER = "btw"
MAX_ASIDE_TOKENS = 4_000
FRAME = (
    "A side question from the user, asked aside from the task: answer it briefly from what "
    "this conversation already holds. Call no tools, and do not continue the task; the "
    "conversation goes on after this as if the question had not been asked.\n\n"
)


async def answer_aside(runtime: Runtime, question: str) -> str:
    """The answer to `question`; its usage is the session's, nothing else of it stays."""
    if not question.strip():
        raise UsageError("/btw QUESTION: ask something.")
    agent = await runtime.agent()
    request = aside_request(agent, runtime.session, question)
    reply = None
    async for item in agent.client.stream(request):
        if isinstance(item, Final):
            reply = item.reply
    if reply is None:
        raise ModelError("the side question got no reply")
    runtime.session.account(reply.usage, CALLER, reply.model)
    return reply.text().strip() or "(no answer)"


def aside_request(agent: Agent, session: Session, question: str) -> ModelRequest:
    messages = repair([*session.messages, user_text(FRAME + question.strip())])
    return ModelRequest(
        model=session.model,
        system=agent.system,
        messages=messages,
        tools=agent.registry.schemas,
        tool_choice={"type": "none"} if agent.registry.schemas else None,
        max_tokens=min(session.settings.max_tokens, MAX_ASIDE_TOKENS),
        caller=CALLER,
    )
