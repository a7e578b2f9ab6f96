"""Auto mode in `agent chat`: `/permissions` (the permission mode and this session's verdicts)
and `/auto-rules` (the project's rules for the reviewer: drafted from the repository for the
user to accept, edit or discard; `show` the rules in effect; `set` the user's edited list)."""

from __future__ import annotations

from collections.abc import Awaitable

from agent_cli.core.errors import AgentError
from agent_cli.ext.auto import drafting, project_rules
from agent_cli.ext.auto.service import AutoService
from agent_cli.policy.trust import TrustStore
from agent_cli.runtime.extensions.contract import CommandPort
from agent_cli.ui.slash.host import Host

CHOICES = "Auto rules:  [a]ccept  [e]dit  [d]iscard"
ANSWERS = {"a": "accept", "e": "edit", "d": "discard"}
SET = "/auto-rules set"
USAGE = "/auto-rules [show | set RULES]: draft the rules from the repository, or show or set them"


def permissions_command(port: CommandPort, arg: str) -> None:
    context = port.context
    mode = context.settings.permissions.mode
    service = context.services("auto")
    state = service.of(context.session_id) if isinstance(service, AutoService) else None
    verdicts = state.verdicts if state is not None else []
    lines = [f"permission mode: {mode}"]
    if state is not None and state.stopped:
        lines.append(f"! {state.stopped}; questions go to you")
    if not verdicts:
        lines.append("no auto-mode verdicts in this session")
    else:
        denied = sum(1 for v in verdicts if not v.allowed)
        lines.append(f"auto-mode verdicts in this session: {len(verdicts)} ({denied} denied)")
        lines += [f"  {v.line()}" for v in verdicts]
    lines += _in_effect(port)
    port.say("\n".join(lines))


def auto_rules_command(port: CommandPort, arg: str) -> Awaitable[None] | None:
    verb, rest = [*arg.split(maxsplit=1), "", ""][:2]  # `set`'s rules: the lines after it
    if verb == "show":
        port.say("\n".join(_in_effect(port)))
        return None
    if verb == "set":
        _keep(port, project_rules.parse_edited(rest))
        return None
    if verb:
        raise AgentError(f"usage: {USAGE}")
    return _draft(port)


def _in_effect(port: CommandPort) -> list[str]:
    rules = port.context.settings.auto.rules
    if not rules:
        return ["auto rules: none (/auto-rules drafts them from the repository)"]
    return ["auto rules in effect:", *(f"  {line}" for line in drafting.render(rules).splitlines())]


async def _draft(port: CommandPort) -> None:
    host = port.front
    assert isinstance(host, Host)
    runtime, settings = host.runtime, port.context.settings
    session = runtime.session
    model = session.model if settings.auto.model == "same" else settings.auto.model
    port.say(f"Drafting auto rules from the repository with {model}…", "dim")
    gathered = drafting.gather(port.context.workspace)
    client = (await runtime.agent()).client
    rules = await drafting.draft(
        client, model, gathered, lambda r: session.account(r.usage, drafting.CALLER, r.model)
    )
    port.say(drafting.render(rules))
    answer = await host.ask(CHOICES, dict(ANSWERS))
    if answer == "accept":
        _keep(port, rules)
    elif answer == "edit":
        draft = f"{SET}\n{drafting.render(rules)}"
        if host.terminal is None:
            port.say(f"Nothing saved: send the rules edited, one per line, as\n{draft}", "dim")
            return
        buffer = host.terminal.buffer  # the user edits it in the input, then sends it
        buffer.text = draft
        buffer.cursor_position = len(draft)  # at the end, as typed text would leave it
        port.say(
            "Edit the rules in the input, one per line (Alt-Enter: a new line, Ctrl-G: "
            "$EDITOR), then Enter.",
            "dim",
        )
    else:
        port.say("Draft discarded; no rules saved.", "dim")


def _keep(port: CommandPort, rules: list[str]) -> None:
    context = port.context
    path = project_rules.save(context.workspace, rules)
    port.say(f"{len(rules)} auto rules saved in {path}.")
    if TrustStore().is_trusted(context.workspace):
        context.settings.auto.rules = list(rules)  # this session's reviewer follows them now
    else:
        port.say(
            "This workspace is not trusted: its auto section is ignored until `agent trust`.",
            "yellow",
        )
