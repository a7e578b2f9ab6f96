"""/undo, /rewind and /diff in `agent chat` (the extension's slash commands): this session's
turns taken back (code, conversation or both) after a question, and what the last turns
changed. The chat's REPL is the command port's front; the run's service does the work."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, cast

from agent_cli.core.events import Event
from agent_cli.ext.checkpoints.service import CheckpointService, CheckpointsOff, RewindMode
from agent_cli.ui.render.render import files_changed

if TYPE_CHECKING:
    from agent_cli.ext.checkpoints.records import Checkpoint
    from agent_cli.runtime.extensions.contract import CommandPort
    from agent_cli.ui.slash.host import Host

YES_NO = {"y": "yes", "n": "no"}
MODES: dict[str, RewindMode] = {"c": "code", "v": "conversation", "b": "both"}
PICK = 9  # turns offered by the /rewind picker (one key each)
MAX_DIFF_LINES = 400


def run(command: Callable[[Host, str], None], port: CommandPort, arg: str) -> None:
    """A command of this module in the chat: its front is the REPL (a `Host`)."""
    front = port.front
    if not hasattr(front, "runtime"):
        raise TypeError(f"{type(front).__name__} is not the chat's REPL")
    command(cast("Host", front), arg)


def service(host: Host) -> CheckpointService:
    found = host.runtime.extension("checkpoints")
    if not isinstance(found, CheckpointService):
        raise CheckpointsOff("Checkpoints are not loaded in this run.")
    return found


def _turns(host: Host) -> list[Checkpoint]:
    """This session's turns; [] (and why, said) when there is none to go back to."""
    try:
        turns = service(host).checkpoints()
    except CheckpointsOff as off:
        host.say(f"{off}", "yellow")
        return []
    if not turns:
        host.say("No turn of this session to go back to yet.")
    return turns


def _label(checkpoint: Checkpoint) -> str:
    return f"turn {checkpoint.turn} ({checkpoint.prompt!r}, {checkpoint.id})"


def changed_files(files: list[str], shown: int = 3) -> str:
    """`2 files changed: a.py, b.py`, what a turn's line in the picker says it changed."""
    if not files:
        return "no file changed"
    names = ", ".join(files[:shown]) + (
        f", … {len(files) - shown} more" if len(files) > shown else ""
    )
    return f"{files_changed(len(files))}: {names}"


async def _go_back(host: Host, target: Checkpoint, mode: RewindMode) -> None:
    lines, switched = await service(host).go_back(target, mode)
    if switched:  # now in the new session: the screen keeps what it shows, the prompt returns
        back = f"↶ back to before {_label(target)}"
        host.rewound("\n".join([back, *lines]), service(host).prompt_of(target))
    else:
        host.say("\n".join(lines))


def _task(host: Host, work: Callable[[], AsyncIterator[Event]]) -> None:
    if getattr(host, "busy", False):
        host.say("A turn is running: wait for it or stop it with Ctrl-C.", "yellow")
        return
    host.start(work)


def undo(host: Host, arg: str) -> None:
    async def work() -> AsyncIterator[Event]:
        turns = _turns(host)
        if not turns:
            return
        target = turns[-1]
        files = await service(host).changed_since(target)
        listing = "\n".join(f"  {f}" for f in files) or "  (no file changed)"
        host.say(
            f"Undo {_label(target)}: the conversation goes back to before it, and these "
            f"files go back:\n{listing}"
        )
        answer = await host.ask("Undo the last turn?  [y]es  [n]o", dict(YES_NO))
        if answer is None:
            host.say(f"No terminal to confirm on: use `agent rewind {target.id}`.", "yellow")
        elif answer != "yes":
            host.say("Nothing undone.")
        else:
            await _go_back(host, target, "both")
        return
        yield  # an async generator without events

    _task(host, work)


def rewind_picker(host: Host, arg: str) -> None:
    async def work() -> AsyncIterator[Event]:
        turns = _turns(host)[-PICK:]
        if not turns:
            return
        keys = {str(n): c.id for n, c in enumerate(reversed(turns), 1)}
        by_id = {c.id: c for c in turns}
        files = await service(host).turn_files(turns)
        host.say(
            "\n".join(
                f"  [{k}] back to before {_label(by_id[v])} · {changed_files(files[v])}"
                for k, v in keys.items()
            )
        )
        picked = await host.ask("Which turn?  (a number; Esc cancels)", keys)
        if picked not in by_id:
            host.say(
                "Nothing rewound."
                if picked is not None
                else "No terminal to pick on: use `agent checkpoints` and `agent rewind ID`."
            )
            return
        answers: dict[str, str] = dict(MODES)
        answer = await host.ask("Rewind  [c]ode  con[v]ersation  [b]oth ?", answers)
        modes = {mode: mode for mode in MODES.values()}
        if answer not in modes:
            host.say("Nothing rewound.")
            return
        await _go_back(host, by_id[picked], modes[answer])
        return
        yield

    _task(host, work)


def diff(host: Host, arg: str) -> None:
    """/diff [N]: what the last N turns (default 1) changed, up to the workspace as it is now."""
    if arg and not (arg.isdigit() and int(arg) > 0):
        host.say("Usage: /diff [N] (N turns back, default 1)", "red")
        return

    async def work() -> AsyncIterator[Event]:
        turns = _turns(host)
        if not turns:
            return
        target = turns[-min(int(arg or 1), len(turns))]
        text = await service(host).diff_since(target)
        host.say(
            f"Changes since before {_label(target)}:"
            if text
            else f"Nothing changed since before {_label(target)}."
        )
        _say_diff(host, text)
        return
        yield

    _task(host, work)


def _say_diff(host: Host, text: str) -> None:
    lines = text.rstrip("\n").split("\n") if text else []
    for line in lines[:MAX_DIFF_LINES]:
        style = ""
        if line.startswith(("+++", "---", "diff --git")):
            style = "bold"
        elif line.startswith(("+", "-", "@@")):
            style = {"+": "green", "-": "red", "@": "cyan"}[line[0]]
        host.say(line, style)
    if len(lines) > MAX_DIFF_LINES:
        host.say(f"… {len(lines) - MAX_DIFF_LINES} more lines: agent checkpoints diff ID", "dim")
