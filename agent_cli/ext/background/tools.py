"""The tools a background session's model talks to other sessions with: `list_sessions` (this
user's sessions), `send_message` (a message into another one's inbox: mail.py) and
`start_session` (a worker, as `agent run --bg` starts one, that reports back to this session).

Offered only to the model of a background session's own process, and not when the settings'
`background.tools` is false. A message is in the sender's transcript as this tool call, and in
the receiver's as a notice from `message`. `start_session` starts the worker in-process rather
than through bash: bash hands its commands no model credentials, so an `agent run --bg` there
could not reach the model."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from agent_cli.core.errors import UsageError
from agent_cli.core.tool_contract import AnyTool, InputT, ToolContext, ToolInput, ToolResult
from agent_cli.ext.background import mail, registry
from agent_cli.ext.background.settings import BackgroundSettings
from agent_cli.ext.background.status import one_line
from agent_cli.runtime.extensions.contract import ExtensionContext, ExtensionTool

LIVE_LAST = 80  # characters of each session's last line in list_sessions


def own_record() -> registry.Record | None:
    """The background session this process is (not one it merely runs under: a nested run)."""
    me = mail.sender()
    return me if me is not None and me.pid == os.getpid() else None


def session_tools(context: ExtensionContext) -> Sequence[AnyTool]:
    me = own_record()
    if me is None or not context.section(BackgroundSettings).tools:
        return []
    return [ListSessions(me), SendMessage(me), StartSession(me)]


class _SessionTool(ExtensionTool[InputT]):
    """A tool of this session's (`me`: its record)."""

    def __init__(self, me: registry.Record) -> None:
        self.me = me


class ListSessionsInput(ToolInput):
    pass


class ListSessions(_SessionTool[ListSessionsInput]):
    name = "list_sessions"
    input_model = ListSessionsInput
    read_only = True
    description: ClassVar[str] = (
        "List this user's background sessions: name, state (working, waiting: ..., idle, done, "
        "failed, stopped), workspace, and the last thing each did. Yours is marked (you); those "
        "you started are marked (yours)."
    )

    async def run(self, args: ListSessionsInput, ctx: ToolContext) -> ToolResult:
        mine = str(self.me.path)
        lines = []
        for record in registry.records():
            mark = " (you)" if str(record.path) == mine else ""
            mark += " (yours)" if record.data.get("parent") == mine else ""
            last = one_line(str(record.data.get("last", "")), LIVE_LAST)
            where = record.data.get("workspace")
            lines.append(f"{record.name}{mark}: {record.state} in {where}; last: {last}")
        return ToolResult("\n".join(lines), summary=f"list_sessions → {len(lines)}")


class SendMessageInput(ToolInput):
    to: str = Field(min_length=1, description="The receiving session's name (list_sessions).")
    text: str = Field(min_length=1, description="The message.")


class SendMessage(_SessionTool[SendMessageInput]):
    name = "send_message"
    input_model = SendMessageInput
    read_only = False
    description: ClassVar[str] = (
        "Send a message to another background session of this user. A working session reads "
        "it at its next tool call; an idle one takes it as its next prompt. When a message "
        "starts its turn, its final answer comes back to you as a message."
    )

    @property
    def asks_permission(self) -> bool:
        return False  # text to the user's own session, which asks for what it does as always

    def describe_call(self, args: SendMessageInput) -> str:
        return f"send_message {args.to}"

    async def run(self, args: SendMessageInput, ctx: ToolContext) -> ToolResult:
        try:
            to = mail.find(args.to, str(self.me.data.get("workspace")))
            if to.path == self.me.path:
                raise UsageError("that is this session: send to another one")
            state = mail.post(to, args.text)
        except UsageError as e:
            return ToolResult(str(e), is_error=True, summary=f"send_message {args.to}: refused")
        when = "as its next prompt" if state == "idle" else "at its next tool call"
        return ToolResult(
            f"Sent to {to.name} ({state}): it reads it {when}.",
            summary=f"send_message {to.name} → {state}",
        )


class StartSessionInput(ToolInput):
    prompt: str = Field(
        default="", description="Its first task; empty: it waits for your send_message."
    )
    name: str | None = Field(default=None, description="Its name (else one from the prompt).")
    worktree: bool = Field(
        default=False, description="Work in an agent worktree of its own name (a git repo)."
    )


class StartSession(_SessionTool[StartSessionInput]):
    name = "start_session"
    input_model = StartSessionInput
    description: ClassVar[str] = (
        "Start a background session (a worker) in this workspace, as `agent run --bg` does. "
        "Its final answer to its prompt comes back to you as a message; send_message gives it "
        "more work. It asks for approvals as a background session does."
    )

    def describe_call(self, args: StartSessionInput) -> str:
        return f"start_session {args.name or args.prompt}".strip()

    async def run(self, args: StartSessionInput, ctx: ToolContext) -> ToolResult:
        from agent_cli.ext.background.child import options_of
        from agent_cli.ext.background.launch import Launcher

        spec = self.me.data["spec"]
        options = replace(  # this session's settings, not its history nor its goal
            options_of(spec), resume=None, continue_last=False, fork_session=False,
            worktree=None, goal=None, goal_max_turns=None, goal_max_minutes=None,
        )  # fmt: skip
        worktree = "" if args.worktree else None
        try:
            name, _ = Launcher().detach(options, args.prompt, args.name, worktree, None)
        except UsageError as e:
            return ToolResult(str(e), is_error=True, summary="start_session: refused")
        started = Path(str(spec["options"]["workspace"]))
        return ToolResult(
            f"Started {name} in {started}. Its answer to its prompt comes to you as a message."
            if args.prompt.strip()
            else f"Started {name} in {started}; it waits for your send_message.",
            summary=f"start_session → {name}",
        )
