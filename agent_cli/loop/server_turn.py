"""What the loop does with the API's server tools: show their calls, list cited sources, and
continue a turn the API paused (`pause_turn`) by sending its reply back as it is.

A paused reply and its continuation are one assistant turn: the transcript records each as
received, and the history holds them as one assistant message (roles alternate, SPEC §16).
"""

from __future__ import annotations

from agent_cli.core.events import CitedSource, Event, SourcesCited, ToolEnd, ToolStart
from agent_cli.core.messages import Block, blocks_of
from agent_cli.core.payloads import SearchDisplay, Source
from agent_cli.model.client import ServerToolCall
from agent_cli.model.server_tools import result_summary, sources
from agent_cli.session.state import Session


def call_events(call: ServerToolCall) -> list[Event]:
    """A server tool call as a finished tool line: the query, then the results' titles."""
    use_id, name = str(call.use.get("id", "")), str(call.use.get("name", ""))
    summary, failed, found = result_summary(call.use, call.result)
    results = SearchDisplay(results=[Source(**item) for item in found])
    args = call.use.get("input")
    return [
        ToolStart(id=use_id, name=name, input=args if isinstance(args, dict) else {}),
        ToolEnd(id=use_id, name=name, is_error=failed, summary=summary, display=results),
    ]


def sources_event(content: list[Block]) -> SourcesCited | None:
    found = sources(content)
    if not found:
        return None
    return SourcesCited(sources=[CitedSource(n=s.n, title=s.title, url=s.url) for s in found])


def store_reply(session: Session, content: list[Block]) -> None:
    """Append the reply; after a paused reply it continues that same assistant message."""
    previous = session.messages[-1] if session.messages else None
    session.append({"role": "assistant", "content": content})
    if previous is not None and previous.get("role") == "assistant":
        session.messages[-2:] = [{"role": "assistant", "content": blocks_of(previous) + content}]


def paused(stop_reason: str | None, pauses_so_far: int, session: Session) -> bool:
    """The API paused a long server-side turn, and the session may still continue it."""
    return stop_reason == "pause_turn" and pauses_so_far < session.settings.web.pause_continuations


def ends_with_reply(session: Session) -> bool:
    """The next request continues a paused reply (it carries no request-only guidance)."""
    return bool(session.messages) and session.messages[-1].get("role") == "assistant"
