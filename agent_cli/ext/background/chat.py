"""The background extension in `agent chat`: `/bg [PROMPT]` starts a background session that
carries this conversation on (a fork of the session, as `--fork-session` makes one: this one
stays as it is), with PROMPT as its next prompt; and the status bar's count of this user's
background sessions that wait for an answer (waiting_part.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from agent_cli.core.errors import UsageError
from agent_cli.core.markers import typed_prompt
from agent_cli.ext.background import names, registry
from agent_cli.ext.background.status import one_line

if TYPE_CHECKING:
    from agent_cli.runtime.extensions.contract import CommandPort
    from agent_cli.runtime.runtime import Runtime
    from agent_cli.ui.slash.host import Host

USAGE = "/bg [PROMPT]"
CARRY_ON = "Carry on with my last request and finish it."
QUOTED = 60  # characters of the last request said back


def bg(port: CommandPort, arg: str) -> None:
    """/bg: the session forked into a background one that runs `arg` (none: it carries on
    with the last request), then its name and how to reach it."""
    from agent_cli.ext.background.launch import Launcher

    host = _host(port)
    if host.busy:  # its fork would lack the running turn, and both would work on it
        host.say(
            "A turn is running: wait for it or stop it (Esc), then /bg carries it on.", "yellow"
        )
        return
    runtime = host.runtime
    prompt, name, chosen_because = arg.strip(), None, ""
    if not prompt:
        last = last_request(runtime.session.messages)
        if last is None:
            raise UsageError(f"{USAGE}: nothing to carry on yet; give the prompt it starts with")
        prompt, name = CARRY_ON, _free_name(runtime, names.from_prompt(last))
        chosen_because = f'No prompt given: it carries on with your last request, "{_quote(last)}".'
    options = replace(
        runtime.options,
        resume=runtime.session.id,  # the child opens a fork of it: this chat keeps its own
        continue_last=False,
        fork_session=True,
        one_shot=True,
    )
    chosen, _ = Launcher().detach(options, prompt, name, None, None)
    port.say("\n".join(started_lines(chosen, chosen_because)))


def started_lines(name: str, chosen_because: str = "") -> list[str]:
    looks = [
        (f"agent attach {name}", "watch it, answer it, steer it (from any terminal)"),
        ("agent ps", "its state (the status bar counts it while it waits for you)"),
        (f"agent stop {name}", "end it"),
    ]
    width = max(len(command) for command, _ in looks)
    return [
        f"{name}: this conversation goes on in the background (this session stays here).",
        *([chosen_because] if chosen_because else []),
        *(f"  {command.ljust(width)}  {what}" for command, what in looks),
    ]


def last_request(messages: list[dict[str, Any]]) -> str | None:
    """The text of the newest prompt the user typed: not a tool's result, nor what the agent
    wrote as theirs (a stopped reply's marker, an attached file)."""
    for message in reversed(messages):
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if message.get("role") != "user" or not isinstance(blocks, list):
            continue
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
            continue
        texts = [
            b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"
        ]
        typed = [t for t in map(typed_prompt, texts) if t is not None and t.strip()]
        if typed:
            return "\n".join(typed)
    return None


def _free_name(runtime: Runtime, wanted: str) -> str:
    """`wanted`, or the first of `wanted-2`, ... nobody in this workspace has (the launcher
    still refuses it, naming it, if another launcher takes it meanwhile)."""
    workspace = str(runtime.options.workspace)
    taken = {r.name for r in registry.records() if r.data.get("workspace") == workspace}
    return names.unique(wanted, taken)


def _quote(text: str) -> str:
    return one_line(text, QUOTED)


def _host(port: CommandPort) -> Host:
    front = port.front
    if not hasattr(front, "runtime"):
        raise TypeError(f"{type(front).__name__} is not the chat's REPL")
    return cast("Host", front)
