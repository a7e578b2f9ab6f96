"""A sandboxed command's network: its proxy, the user's answer for an unlisted host, and the
line its result gets when the proxy refused something.

Hosts allowed "for this project" are kept per user, outside the workspace
(`<user config>/approved-hosts.json`, keyed by the workspace's real path): a repository can
neither ship nor edit them.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_cli.core.asking import Option, Question, headless_ask
from agent_cli.core.events import Answered, QuestionAsked
from agent_cli.core.files.private_file import write_private
from agent_cli.core.settings.schema import user_config_dir
from agent_cli.core.tool_contract import ToolContext, current_call_id
from agent_cli.tools.shell.net_proxy import Approve, Decision, NetworkProxy, Refusal
from agent_cli.tools.shell.net_rules import HostRules, shown

ONCE, PROJECT, DENY = "Allow once", "Allow for this project", "Deny"


class HostsFile(BaseModel):
    model_config = ConfigDict(extra="ignore")

    workspaces: dict[str, list[str]] = Field(
        default_factory=dict, description="Workspace real path -> host:port entries allowed."
    )


class ApprovedHosts:
    """The hosts the user allowed for one workspace; a file that cannot be read gives none."""

    def __init__(self, workspace: Path, path: Path | None = None) -> None:
        self.workspace = str(workspace.expanduser().resolve())
        self.path = path or user_config_dir() / "approved-hosts.json"

    def entries(self) -> list[str]:
        return list(self._load().workspaces.get(self.workspace, []))

    def add(self, entry: str) -> None:
        data = self._load()
        known = data.workspaces.setdefault(self.workspace, [])
        if entry not in known:
            known.append(entry)
            write_private(self.path, data.model_dump_json(indent=2))

    def _load(self) -> HostsFile:
        try:
            return HostsFile.model_validate(json.loads(self.path.read_text(encoding="utf-8")))
        except (OSError, ValueError, ValidationError):
            return HostsFile()


def _question(host: str, port: int, command: str) -> Question:
    return Question(
        question=f"A sandboxed command wants to reach {shown(host, port)}: {command[:200]}",
        header="Network",
        options=[
            Option(label=ONCE, description="For the rest of this command."),
            Option(label=PROJECT, description="Remembered for this workspace."),
            Option(label=DENY, description="The request is refused."),
        ],
    )


def approver(ctx: ToolContext, command: str, store: ApprovedHosts) -> Approve | None:
    """The user's answer in chat, or auto mode's (its reviewer's, which may ask the user); None
    where nobody can answer (the request is refused)."""
    user = _user_asked(ctx, command, store)
    if user is None and ctx.settings.permissions.mode != "auto":
        return None

    async def approve(host: str, port: int) -> Decision | Refusal:
        async def the_user_allows() -> bool:
            return user is not None and await user(host, port) != "deny"

        reviewed = await ctx.review_host(host, port, command, the_user_allows)
        if reviewed is None:  # auto mode is off (Shift-Tab): the user's question
            return "deny" if user is None else await user(host, port)
        allowed, why_not = reviewed
        return "once" if allowed else Refusal(why_not)

    return approve


def _user_asked(
    ctx: ToolContext, command: str, store: ApprovedHosts
) -> Callable[[str, int], Awaitable[Decision]] | None:
    """The user's answer in chat; None where nobody can be asked."""
    if ctx.ask is headless_ask:
        return None

    async def ask(host: str, port: int) -> Decision:
        call_id = (current_call_id.get() or "call") + f":net:{shown(host, port)}"
        questions = [_question(host, port, command)]
        ctx.emit(QuestionAsked(id=call_id, questions=questions))
        answers = await ctx.ask(questions)
        ctx.emit(Answered(id=call_id, answers=answers or [], nobody=answers is None))
        chosen = answers[0].chosen if answers else []
        if PROJECT in chosen:
            store.add(shown(host, port))
            return "project"
        return "once" if ONCE in chosen else "deny"

    return ask


async def open_proxy(ctx: ToolContext, command: str) -> NetworkProxy | None:
    """The command's proxy; None when nothing could get through it (no host listed, nobody to
    ask): then the command starts without the forwarder's cost and its network simply fails."""
    store = ApprovedHosts(ctx.workspace)
    allowed = [*ctx.settings.sandbox.network.allowed_domains, *store.entries()]
    approve = approver(ctx, command, store)
    if not allowed and approve is None:
        return None
    proxy = NetworkProxy(HostRules.of(allowed, ctx.settings.web), approve)
    await proxy.start()
    return proxy


def network_notes(proxy: NetworkProxy | None) -> list[str]:
    """The lines for the model when the proxy refused a request of this command."""
    refusals = proxy.refusals if proxy is not None else []
    return [f"[sandbox: network request refused: {r}]" for r in refusals]
