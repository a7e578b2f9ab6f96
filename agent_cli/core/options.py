"""What a front end asks of the runtime: one typed set of options for `agent run` and
`agent chat`. Standard library only: `agent chat` builds it before anything heavy is imported."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

PermissionMode = Literal["default", "accept-edits", "bypass", "plan", "auto"]
PERMISSION_MODES: tuple[PermissionMode, ...] = ("default", "accept-edits", "bypass", "plan", "auto")
MODE_CYCLE: tuple[PermissionMode, ...] = ("default", "accept-edits", "plan", "auto")
SandboxModeOpt = Literal["auto", "required", "off"]
SANDBOX_MODES: tuple[SandboxModeOpt, ...] = ("auto", "required", "off")


@dataclass
class Options:
    workspace: Path
    state_dir: Path | None = None
    model: str | None = None
    permission_mode: PermissionMode | None = None
    resume: str | None = None
    continue_last: bool = False
    fork_session: bool = False  # the resumed session goes on as a new one (its history copied)
    max_turns: int | None = None
    max_cost_usd: float | None = None  # --max-cost: the budget.max_cost_usd of this run
    quiet: bool = False
    one_shot: bool = False  # `agent run`: long commands are not moved to the background
    wait_jobs: bool = False  # `agent run --wait-jobs`: the run ends when its jobs have ended
    worktree: str | None = None  # `--worktree NAME`: the session works in that agent worktree
    sandbox: SandboxModeOpt | None = None  # `--sandbox MODE` (else AGENT_SANDBOX, settings)
    add_dirs: tuple[Path, ...] = ()  # /add-dir: read and written as the workspace is
    # `agent run --goal-check CMD` / `--goal TEXT`: read by the goals extension as it starts
    goal: str | None = None
    goal_kind: Literal["command", "words"] = "command"
    goal_max_turns: int | None = None  # --max-turns with a goal: the goal's turns
    goal_max_minutes: float | None = None


def next_mode(current: str) -> PermissionMode:
    """The mode after `current` as the chat's key cycles them: default -> accept-edits -> plan
    -> auto -> default (bypass is only ever chosen at start, never cycled into)."""
    if current not in MODE_CYCLE:
        return "default"
    return MODE_CYCLE[(MODE_CYCLE.index(current) + 1) % len(MODE_CYCLE)]
