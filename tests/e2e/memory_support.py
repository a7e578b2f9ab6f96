"""Shared pieces of the episodic-memory tests: an in-process agent with its EpisodeManager, test
a test tool that changes files (write_file is not merged yet), and the generator's replies."""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import Any

from agent_cli.core.events import Event
from agent_cli.core.settings.schema import Settings
from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult
from agent_cli.loop.agent import Agent
from agent_cli.memory.manager import EpisodeManager
from agent_cli.runtime.assembly import base_tools
from agent_cli.tools.registry import ToolRegistry, input_schema
from agent_cli.tools.todo_write import TodoWrite
from tests.e2e.agents import make_assembly
from tests.fake_model import FakeAnthropic, Script, has_tools, system_contains
from tests.sandbox_support import shell_wrapper

GENERATOR_MARK = "You write episodic memory"


class WriteInput(ToolInput):
    path: str
    content: str


class FakeWrite(Tool[WriteInput]):
    """Stands in for write_file: writes and marks the path touched."""

    name = "write_file"
    input_model = WriteInput

    async def run(self, args: WriteInput, ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(args.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(args.content)
        ctx.touched.add(path)
        return ToolResult(f"wrote {args.path}")


class PlainRegistry(ToolRegistry):
    """Test tools have no shipped description file."""

    @cached_property
    def schemas(self) -> list[dict[str, Any]]:
        return [
            {"name": t.name, "description": f"{t.name} (test)", "input_schema": input_schema(t)}
            for t in self.tools.values()
        ]


def memory_agent(
    workspace: Path, settings: Settings | None = None, resume: str | None = None
) -> tuple[Agent, EpisodeManager]:
    """The shared agent and its memory, with the test write tool beside the shipped tools."""
    assembly = make_assembly(workspace, settings, resume=resume)
    session = assembly.agent.session
    todo = TodoWrite(session.todos, session.record)
    assembly.agent.registry = PlainRegistry(
        [*base_tools(shell_wrapper=shell_wrapper), todo, FakeWrite()]
    )
    return assembly.agent, assembly.memory


async def drive(agent: Agent, memory: EpisodeManager, prompt: str) -> list[Event]:
    """A turn as the runtime drives it: the memory hears it as one of the agent's observers."""
    assert memory in agent.observers
    return [event async for event in agent.run_turn(prompt)]


def generator_route(server: FakeAnthropic) -> Script:
    """Requests of the episode generator: no tools, its own system prompt."""
    is_generator = system_contains(GENERATOR_MARK)
    no_tools = has_tools(False)
    return server.route(lambda body: no_tools(body) and is_generator(body))


def episode_json(title: str = "Fix crash on empty input in parser", **fields: Any) -> str:
    data: dict[str, Any] = {
        "title": title,
        "core_problem": "parse() raised IndexError on an empty string.",
        "key_decisions": ["Return an empty AST for empty input instead of raising"],
        "code_changes": [{"file": "src/x.py", "symbol": "parse", "summary": "guard empty input"}],
        "depends_on": [],
        "open_issues": ["Unicode input is untested"],
        "code_fingerprints": ["src/x.py#L10-L24"],
        "revises": None,
    }
    data.update(fields)
    return json.dumps(data)


def user_text(body: dict[str, Any]) -> str:
    return "\n".join(
        b.get("text", "")
        for m in body["messages"]
        if m["role"] == "user"
        for b in (m["content"] if isinstance(m["content"], list) else [])
    )


def generator_bodies(server: FakeAnthropic) -> list[dict[str, Any]]:
    return [b for b in server.bodies() if GENERATOR_MARK in json.dumps(b.get("system", ""))]


TODOS_OPEN = [
    {"content": "Fix the parser crash", "status": "in_progress", "active_form": "Fixing"},
    {"content": "Add a regression test", "status": "pending"},
]
TODOS_DONE = [{**t, "status": "completed"} for t in TODOS_OPEN]
