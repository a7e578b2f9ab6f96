"""The session's side for a client that asks for the session's own events (`agent attach`'s
chat screen: attach_screen.py) rather than ACP's updates: in initialize's clientCapabilities
`_meta` it says `{"agent/events": true}`; then `session/load` replays nothing and answers
with the transcript to draw the history from (its path, and its size as the client joined:
what is written after that comes as events), every event goes out as `_agent/event`
(`{"event": <core.events payload>}`), an approval waiting as `_agent/waiting` too (with the
whole ApprovalRequest, as `agent chat` shows it), answered by `_agent/answer` with `key`,
`decision` (any of the approver's: allow, always, project, deny, discard) and `feedback`;
and `_agent/answered` (`{"key"}`) tells every such client that a thing waiting was answered
(by whichever client), so its dialog closes."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, get_args

from agent_cli.ext.background.acp.wire import EVENTS
from agent_cli.policy.approval import Decision, Denial

if TYPE_CHECKING:
    from acp.schema import ClientCapabilities

    from agent_cli.ext.background.answering import Held, Waiting
    from agent_cli.runtime.runtime import Runtime

DECISIONS: tuple[str, ...] = get_args(Decision)


def wants_events(capabilities: ClientCapabilities | None) -> bool:
    meta = capabilities.field_meta if capabilities is not None else None
    return bool(isinstance(meta, dict) and meta.get(EVENTS))


def history(runtime: Runtime) -> dict[str, Any]:
    """What the load's response `_meta` says: the transcript to draw up to `size` bytes, and
    whether a turn runs."""
    transcript = runtime.session.transcript
    path = transcript.path if transcript is not None else None
    size = path.stat().st_size if path is not None and path.exists() else 0
    return {
        "transcript": str(path) if path is not None else "",
        "size": size,
        "busy": runtime.work.turn_running,
    }


def waiting_params(item: Held) -> dict[str, Any]:
    """A thing waiting as an events client gets it: an approval with its whole request."""
    if item.kind == "approval" and dataclasses.is_dataclass(item.asked):
        return {**item.shown, "request": dataclasses.asdict(item.asked)}  # type: ignore[arg-type]
    return item.shown


def decide(waiting: Waiting, params: dict[str, Any]) -> str | None:
    """`_agent/answer` with a `decision`: the approval of `key` answered; what went wrong."""
    given, key = str(params.get("decision")), params.get("key")
    found = [i for i in waiting.asked if i.kind == "approval" and i.shown["key"] == key]
    if not found:
        return "answered already"
    if given not in DECISIONS:
        return f"{given!r} is not an answer: {', '.join(DECISIONS)}"
    feedback = str(params.get("feedback") or "")
    waiting.resolve(found[0], Denial(feedback) if given == "deny" and feedback else given)
    return None
