"""How `agent run` reports: text, one JSON object, or one JSON line per event (stream-json).
stdout carries only the requested output; progress goes to stderr."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from agent_cli.cli.common import fail
from agent_cli.core.errors import AgentError
from agent_cli.core.events import (
    AutoVerdict,
    CheckpointSaved,
    ClaimsChecked,
    ErrorEvent,
    Event,
    GoalChecked,
    PlanPresented,
    Retrying,
    ToolEnd,
    TurnEnd,
    UsageUpdate,
    WarningEvent,
)


@runtime_checkable
class Reporting(Protocol):
    """An extension's service with a part of the run's result (the goals': where the goal
    ended, or None)."""

    def result(self) -> dict[str, Any] | None: ...


if TYPE_CHECKING:
    from agent_cli.session.state import Session

OutputFormat = Literal["text", "json", "stream-json"]


@dataclass
class RunOutcome:
    session_id: str | None
    text: str = ""
    error: str | None = None
    exit_code: int = 0
    num_turns: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    cost_usd: float | None = None
    checkpoint_id: str | None = None  # `agent rewind ID` takes the run's turn back
    plan: str | None = None  # present_plan ended the run (--permission-mode plan)
    structured: bool = False  # --json-schema: the answer is `structured_output`
    structured_output: Any = None
    goal: dict[str, Any] | None = None  # --goal-check / --goal: where the goal ended
    goals: Reporting | None = None  # the goals extension's service, when it is there
    # the cost extension's service ("cache", "cost_by_agent"), asked for when the result is made
    cost: Callable[[], object] | None = None
    claims: list[dict[str, Any]] = field(default_factory=list)  # the final answer's, checked
    context: dict[str, Any] | None = None  # where the context goes (/context's breakdown)
    _claims: list[dict[str, Any]] = field(default_factory=list)  # the turn's, until it ends
    reported: bool = False  # the result line of the last turn is out (stream-json input)
    earlier_exit: int = 0  # the first failing code of an earlier turn (stream-json input)

    def take_goal(self) -> None:
        """Where the goal stands (when there is one): exit 0 only when it was met."""
        goal = self.goals.result() if self.goals is not None else None
        if goal is None:
            return
        self.goal = goal
        if not goal["met"] and self.exit_code == 0:
            self.error = f"goal {goal['state']}: {goal['reason'] or 'the check did not pass'}"
            self.exit_code = 1

    def totalled(self, session: Session) -> RunOutcome:
        """With the session's usage and cost so far."""
        self.usage = session.usage.model_dump()
        self.cost_usd = session.cost_usd
        return self

    def next_turn(self) -> None:
        """The turn was reported: the next one's outcome starts afresh, its failure kept."""
        self.earlier_exit = self.earlier_exit or self.exit_code
        self.text, self.error, self.exit_code, self.num_turns = "", None, 0, 0
        self.checkpoint_id = self.plan = self.structured_output = None
        self.reported = True

    def take_structured(self, valid: bool, value: Any) -> None:
        if valid:
            self.structured_output = value
        elif self.exit_code == 0:
            self.error, self.exit_code = "no valid value for --json-schema came", 1

    def result_object(self) -> dict[str, Any]:
        return (
            {
                "session_id": self.session_id,
                "result": self.text,
                "is_error": self.exit_code != 0,
                "error": self.error,
                "num_turns": self.num_turns,
                "usage": self.usage,
                "cost_usd": self.cost_usd,
                "checkpoint_id": self.checkpoint_id,
            }
            | ({"structured_output": self.structured_output} if self.structured else {})
            | ({"plan": self.plan} if self.plan is not None else {})
            | ({"goal": self.goal} if self.goal is not None else {})
            | {"claims": self.claims, "context": self.context}
            | self._cost_part()
        )

    def _cost_part(self) -> dict[str, Any]:
        found = self.cost() if self.cost is not None else None
        return (found.result() or {}) if isinstance(found, Reporting) else {}


def _line(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


class RunReporter:
    def __init__(self, fmt: OutputFormat, quiet: bool) -> None:
        self.fmt = fmt
        self.quiet = quiet

    def init(self, session_id: str, model: str, tools: list[str]) -> None:
        if self.fmt == "stream-json":
            _line({"type": "init", "session_id": session_id, "model": model, "tools": tools})

    def event(self, event: Event, outcome: RunOutcome) -> None:
        if isinstance(event, ErrorEvent):
            outcome.error, outcome.exit_code = event.message, event.exit_code
        elif isinstance(event, UsageUpdate) and event.caller == "main":
            outcome.num_turns += 1  # counted as they come: an interrupted turn has no TurnEnd
        elif isinstance(event, ClaimsChecked):
            outcome._claims = [c.model_dump() for c in event.claims]
        elif isinstance(event, TurnEnd):
            outcome.text, outcome.num_turns = event.text, event.rounds
            outcome.claims, outcome._claims = outcome._claims, []
        elif isinstance(event, CheckpointSaved):
            outcome.checkpoint_id = event.id
        elif isinstance(event, PlanPresented):
            outcome.plan = event.plan
        if self.fmt == "stream-json":
            _line(event.model_dump(mode="json"))
        elif isinstance(event, ClaimsChecked):  # stderr, even when quiet
            sys.stderr.write("".join(f"{c.mark()}\n" for c in event.claims))
        elif not self.quiet:
            self._progress(event)

    def _progress(self, event: Event) -> None:
        if isinstance(event, ToolEnd):
            mark = "✗" if event.is_error else "•"
            sys.stderr.write(f"{mark} {event.summary}\n")
        elif isinstance(event, WarningEvent):
            sys.stderr.write(f"warning: {event.message}\n")
        elif isinstance(event, Retrying):
            sys.stderr.write(f"↻ {event.line()}\n")
        elif isinstance(event, GoalChecked):
            sys.stderr.write(f"◎ {event.goal.line()}\n")
        elif isinstance(event, AutoVerdict):
            sys.stderr.write(f"{event.line()}\n")

    def finish(self, outcome: RunOutcome) -> None:
        if self.fmt == "stream-json":
            _line({"type": "result", **outcome.result_object()})
        elif self.fmt == "json":
            _line(outcome.result_object())
        elif outcome.exit_code == 0 and outcome.structured:
            sys.stdout.write(json.dumps(outcome.structured_output, ensure_ascii=False) + "\n")
            sys.stdout.flush()
        elif outcome.exit_code == 0:
            sys.stdout.write(outcome.text.rstrip("\n") + "\n")
            sys.stdout.flush()
        if outcome.error:
            sys.stderr.write(f"agent: {outcome.error}\n")

    @contextmanager
    def failure_reported(self) -> Iterator[None]:
        """A failure before the turn starts (an exit-2 usage error too) still gives the json
        formats their result object; stderr gets the one line as for any command."""
        try:
            yield
        except AgentError as e:
            self._early(str(e), e.exit_code)
            raise
        except Exception as e:
            from agent_cli.cli.failures import internal_error

            message = internal_error(e)
            self._early(message, 1)
            raise fail(message, 1) from None

    def _early(self, error: str, exit_code: int) -> None:
        outcome = RunOutcome(session_id=None, error=error, exit_code=exit_code)
        if self.fmt == "stream-json":
            _line({"type": "result", **outcome.result_object()})
        elif self.fmt == "json":
            _line(outcome.result_object())
