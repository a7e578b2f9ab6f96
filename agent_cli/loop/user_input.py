"""What the user adds to a turn besides the prompt: `@path` files attached as read_file reads
them, and `!command` run in the shell by the user. Both go through the agent's tools, so the
permission gate, the size cap and the read-before-edit memory apply as to the model's calls."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.core import history
from agent_cli.core.events import ToolEnd, ToolStart
from agent_cli.core.messages import Block
from agent_cli.loop.shown import record_shown

if TYPE_CHECKING:
    from agent_cli.loop.agent import Agent

MENTION = re.compile(r"(?:^|(?<=\s))@([^\s@]+)")
SHELL_ID = "user-shell"


def mentioned_files(text: str, workspace: Path) -> list[str]:
    """The `@path` words of a prompt that name files inside the workspace, once each."""
    root = workspace.resolve()
    found: list[str] = []
    for word in MENTION.findall(text):
        word = word.rstrip(".,;:!?)")
        path = (root / word).resolve()
        if path.is_relative_to(root) and path.is_file() and word not in found:
            found.append(word)
    return found


async def with_files(agent: Agent, text: str, request: str, workspace: Path) -> list[Block]:
    """`request` (the prompt, perhaps with more attached) and a block per file `text` names."""
    blocks: list[Block] = [{"type": "text", "text": request}]
    for path in mentioned_files(text, workspace):
        ctx = agent.session.tool_ctx
        result = await agent.registry.dispatch("read_file", {"path": path}, ctx)
        if not result.is_error and result.blocks:  # an image: its line, then the image
            blocks += [{"type": "text", "text": f"@{path}: {result.content}"}, *result.blocks]
        elif not result.is_error:
            blocks.append(
                {"type": "text", "text": f"{history.ATTACHED.format(path=path)}\n{result.content}"}
            )
    return blocks


async def user_shell(agent: Agent, command: str) -> ToolEnd:
    """Run `command` as the user; the command and its output join the conversation (the model
    reads them with the next prompt), and the turn's observers hear it as they hear the
    model's commands (a command the user ran is evidence too)."""
    ctx = agent.session.tool_ctx
    result = await agent.registry.dispatch("bash", {"command": command}, ctx, SHELL_ID)
    end = ToolEnd(
        id=SHELL_ID,
        name="bash",
        is_error=result.is_error,
        summary=result.summary or f"bash {command}",
        output=result.content,
    )
    agent.hear(ToolStart(id=SHELL_ID, name="bash", input={"command": command}))
    agent.hear(end)
    record_shown(agent.session, end)
    agent.session.append(
        history.user_text(f"{history.SHELL_HEAD.format(command=command)}\n{result.content}")
    )
    return end
