"""Done means proven (SPEC §1, §4, §13): each session's evidence ledger (the commands with their
exit codes, the edits, in order) fed from its turns' events; the claims of each final answer
marked against it ("tests pass" verified only by a run after the last edit); and a goal
pursued turn after turn until its check passes (`/goal`, `agent run --goal-check/--goal`).

It plugs in as the run's service (`runtime.extension("goals")`: the goal) and, per session,
one object that is both a turn observer (the ledger hears every event) and turn middleware
(the claims at the turn's end; with a goal, the check after it and its feedback as the next
message). Loading it costs this module: the ledger, the claims, the check and the evaluator
are imported when a turn first needs them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent_cli.core.events import ErrorEvent, Event, FilesChanged, ToolEnd, ToolStart, TurnEnd
from agent_cli.core.messages import Block
from agent_cli.ext.goals.settings import KEYS, verify_settings
from agent_cli.policy.turn_hooks import FollowUp
from agent_cli.runtime.extensions.contract import (
    CommandPort,
    Extension,
    ExtensionContext,
    SlashCommand,
)

if TYPE_CHECKING:
    from agent_cli.ext.goals.goal import Goal, Limits
    from agent_cli.ext.goals.ledger import EvidenceLedger
    from agent_cli.runtime.runtime import Runtime

_LEDGER_EVENTS = (ToolStart, ToolEnd, FilesChanged)


class Goals:
    """The run's goal, pursued across the turns of whichever session is open."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.goal: Goal | None = None
        self._sessions: dict[str, GoalTurns] = {}
        options = runtime.options
        if options.goal is not None:  # `agent run --goal-check` / `--goal`
            from agent_cli.ext.goals.pursuit import limits_of

            turns, minutes = options.goal_max_turns, options.goal_max_minutes
            limits = limits_of(runtime.settings, turns, minutes, flags=True)
            self.set_goal(options.goal, options.goal_kind, limits)

    def set_goal(
        self, check: str | None, kind: str = "command", limits: Limits | None = None
    ) -> Goal | None:
        """`/goal CMD`, `/goal "TEXT"`, `--goal-check`, `--goal`; None ends the goal."""
        from agent_cli.ext.goals.pursuit import new_goal

        self.goal = new_goal(self.runtime, check, kind, limits)
        return self.goal

    def result(self) -> dict[str, object] | None:
        """Where the goal ended (`agent run`'s result), or None without one."""
        return None if self.goal is None else self.goal.status.result()

    def session(self, context: ExtensionContext) -> GoalTurns:
        if context.session_id not in self._sessions:
            self._sessions[context.session_id] = GoalTurns(self, context)
        return self._sessions[context.session_id]


class GoalTurns:
    """One session's observer and turn middleware."""

    def __init__(self, goals: Goals, context: ExtensionContext) -> None:
        self.goals = goals
        self.context = context
        self._ledger: EvidenceLedger | None = None
        self._following: Goal | None = None  # the goal whose feedback is the next message
        self._changed: FilesChanged | None = None  # what the newest turn changed (checkpoints)

    @property
    def ledger(self) -> EvidenceLedger:
        if self._ledger is None:
            from agent_cli.ext.goals.ledger import EvidenceLedger

            self._ledger = EvidenceLedger()
        return self._ledger

    # -- the observer: every event of the session's turns (a `!command` the user ran too)

    def on_user_message(self, text: str) -> None:
        self._changed = None

    def on_event(self, event: Event) -> None:
        if isinstance(event, _LEDGER_EVENTS):
            self.ledger.feed(event)
        if isinstance(event, FilesChanged):
            self._changed = event

    def on_round_end(self) -> None:
        pass

    # -- the middleware

    async def before_turn(self, blocks: list[Block]) -> list[Event]:
        """A goal's first message says what will be checked (its feedback does not)."""
        goal = self.goals.goal
        if goal is not None and goal.active and self._following is not goal:
            blocks.append({"type": "text", "text": goal.instruction()})
        self._following = None
        return []

    async def after_turn(self, end: TurnEnd) -> str | None:
        return None

    async def at_end(self, end: TurnEnd, tell: Callable[[Event], None]) -> None:
        """The final answer's claims, marked against the evidence, just before the TurnEnd."""
        if end.text.strip():
            from agent_cli.ext.goals.claims import claims_checked

            extra = verify_settings(self.context.settings).commands
            if (checked := claims_checked(end.text, self.ledger, extra)) is not None:
                tell(checked)

    async def follow_up(self, end: TurnEnd, error: ErrorEvent | None) -> FollowUp | None:
        """With a goal: its check; when it fails, what it said is the next message."""
        goal = self.goals.goal
        if goal is None or not goal.active:
            return None
        from agent_cli.ext.goals.pursuit import after_turn

        runtime, changed = self.goals.runtime, self._changed
        events = await after_turn(goal, end, error, runtime, self.ledger, changed)
        self._following = goal if goal.active else None
        return FollowUp(events, goal.feedback() if goal.active else None)


def _service(runtime: Any) -> Goals:
    return Goals(runtime)


def _turns(context: ExtensionContext) -> list[GoalTurns]:
    goals = context.services("goals")
    return [goals.session(context)] if isinstance(goals, Goals) else []


def _goal_command(port: CommandPort, arg: str) -> None:
    from agent_cli.ext.goals.chat import goal_command

    goals = port.context.services("goals")
    if not isinstance(goals, Goals):
        port.say("Goals are not available.", "red")
        return
    goal_command(port, goals, arg)


EXTENSION = Extension(
    name="goals",
    about="done means proven: claims marked against the evidence, goals checked after turns",
    keys=KEYS,
    service=_service,
    observers=_turns,
    middleware=_turns,
    slash_commands=(
        SlashCommand(
            "/goal",
            "keep working until CMD exits 0 (or TEXT is judged met)",
            _goal_command,
            usage='/goal [CMD|"TEXT"|off]',
        ),
    ),
)
