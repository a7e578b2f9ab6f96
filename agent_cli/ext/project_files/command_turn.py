"""`/name args` as a turn: the loop's TurnHooks port expands a project command (or a skill the
user invokes) before anything is stored, and grants the command's `allowed-tools` and `model`
for that turn only.

`` !`cmd` `` lines run through the permission gate with those patterns granted; from a workspace
not yet trusted they are asked instead (headless: not run), and `allowed-tools` grants nothing.
"""

from __future__ import annotations

import glob
import logging
from typing import TYPE_CHECKING

from agent_cli.core.events import Event, TurnEnd
from agent_cli.core.messages import Block
from agent_cli.core.settings.models import aliases as model_aliases
from agent_cli.core.text.redaction import redact
from agent_cli.ext.project_files import vocabulary as vocab
from agent_cli.ext.project_files.catalog import ProjectFiles
from agent_cli.ext.project_files.definitions import Definition
from agent_cli.ext.project_files.expand import ShellRunner, expand
from agent_cli.ext.project_files.skills import SkillState, skill_prompt
from agent_cli.policy.approval import ApprovalRequest
from agent_cli.policy.turn_hooks import prompt_text

if TYPE_CHECKING:
    from agent_cli.policy.permissions import Permissions
    from agent_cli.session.state import Session
    from agent_cli.tools.registry import ToolRegistry

log = logging.getLogger(__name__)
UNTRUSTED = "`agent trust` lets this workspace's commands run their !`cmd` lines unasked"


def parse_invocation(text: str) -> tuple[str, str] | None:
    """(`name`, `arguments`) of `/name arguments`; None for anything else."""
    text = text.strip()
    if not text.startswith("/") or len(text) < 2 or text[1].isspace():
        return None
    name, _, arguments = text[1:].partition(" ")
    head, _, rest = name.partition("\n")
    return head, (rest + " " + arguments).strip() if rest else arguments.strip()


class CommandTurns:
    def __init__(
        self,
        files: ProjectFiles,
        session: Session,
        registry: ToolRegistry,
        permissions: Permissions,
        skills: SkillState,
    ) -> None:
        self.files = files
        self.session = session
        self.registry = registry
        self.permissions = permissions
        self.skills = skills
        self._model: str | None = None

    async def before_turn(self, blocks: list[Block]) -> list[Event]:
        self._restore()
        invocation = parse_invocation(prompt_text(blocks))
        item = self.files.resolve_command(invocation[0]) if invocation else None
        if item is None or invocation is None:
            return []  # not ours: sent as written
        log.info("slash command /%s from %s", item.name, item.path)
        if self.files.allows(item, "tools"):
            self.permissions.turn_allow = list(item.patterns)
        model, note = vocab.resolve_model(
            item.model, model_aliases(self.session.settings), self.session.model
        )
        if note:
            log.warning("/%s: %s", item.name, note)
        self._model, self.session.model = self.session.model, model
        try:
            text = await self._text(item, invocation[1])
        except BaseException:  # interrupted while a !`cmd` line ran: nothing stays granted
            self._restore()
            raise
        others = [b for b in blocks if b.get("type") != "text"]
        blocks[:] = [{"type": "text", "text": text}, *others]
        return []

    async def after_turn(self, end: TurnEnd) -> str | None:
        self._restore()
        return None

    def _restore(self) -> None:
        self.permissions.turn_allow = []
        if self._model is not None:
            self.session.model, self._model = self._model, None

    async def _text(self, item: Definition, arguments: str) -> str:
        limits = self.session.settings.project_files
        if item.kind == "skill":
            self.skills.load(item)
            body = skill_prompt(item)
        else:
            body = item.body
        run = self._shell_runner(item)
        text = await expand(body, arguments, self.files.workspace, run, limits.inline_file_chars)
        return redact(text, self.session.tool_ctx.secrets)  # an @path file may hold the key

    def _shell_runner(self, item: Definition) -> ShellRunner:
        trusted = self.files.allows(item, "shell")

        async def run(command: str) -> str:
            if not trusted and not await self._asked(item, command):
                return f"[`{command}` was not run: the workspace is not trusted; {UNTRUSTED}]"
            return await self._run(command, granted=not trusted)

        return run

    async def _asked(self, item: Definition, command: str) -> bool:
        request = ApprovalRequest(
            "bash",
            f"bash {command} (a !`cmd` line of /{item.name})",
            f"nothing: /{item.name}'s lines are asked until the workspace is trusted",
            UNTRUSTED,
        )
        answer = await self.permissions.approver.approve(request)
        log.info("command line %r of /%s: %s (untrusted workspace)", command, item.name, answer)
        return answer in ("allow", "always")

    async def _run(self, command: str, granted: bool) -> str:
        limits = self.session.settings.project_files
        saved = list(self.permissions.turn_allow)
        if granted:  # the user said yes to this very line
            self.permissions.turn_allow = [*saved, f"bash({glob.escape(command)})"]
        try:
            result = await self.registry.dispatch(
                "bash",
                {"command": command, "timeout_s": limits.command_timeout_s},
                self.session.tool_ctx,
                call_id="command-line",
            )
        finally:
            self.permissions.turn_allow = saved
        output = result.content[: limits.command_output_chars]
        return f"\n```\n$ {command}\n{output}\n```\n"
