"""The composition root: settings, state paths, the session (new or resumed), the agent with
its tools, stages, guides and memory, and the Runtime the front ends drive. Extensions (pipeline
stages, guides, observers, extra tools) are wired here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_cli.context.pipeline import build_pipeline, request_overhead
from agent_cli.context.tokens import resolve_thresholds
from agent_cli.core.errors import UsageError
from agent_cli.core.events import Event
from agent_cli.core.files import durable
from agent_cli.core.files.logs import secrets_from_env, setup_logging
from agent_cli.core.files.paths import Paths
from agent_cli.core.options import Options
from agent_cli.core.prompts.system import build_system
from agent_cli.core.settings.schema import Settings, load_settings
from agent_cli.core.tool_contract import AnyTool, ToolContext
from agent_cli.jobs.board import JobBoard
from agent_cli.loop.agent import Agent
from agent_cli.mcp.manager import McpManager
from agent_cli.mcp.setup import start_mcp
from agent_cli.memory.manager import EpisodeManager
from agent_cli.memory.recall import Recall
from agent_cli.memory.recall_notes import search_notes
from agent_cli.memory.setup import recent_episodes_section
from agent_cli.model.call_log import CallLog, key_last4
from agent_cli.model.client import ModelClient
from agent_cli.model.credentials import require_credentials
from agent_cli.model.server_tools import declarations
from agent_cli.policy.approval import Approver, HeadlessApprover
from agent_cli.policy.approved_rules import ApprovedRules
from agent_cli.policy.gate import PolicyGate
from agent_cli.policy.hooks import Hooks
from agent_cli.policy.permissions import Permissions
from agent_cli.policy.trust import TrustStore
from agent_cli.policy.turn_hooks import TurnHooksChain
from agent_cli.project_files.instructions import project_instructions
from agent_cli.project_files.wire import wire as wire_project_files
from agent_cli.runtime.runtime import Assembly, Runtime
from agent_cli.session.resume import (
    Restored,
    find_session,
    fold,
    latest_session,
    warn_other_workspace,
)
from agent_cli.session.state import Session, new_session_id
from agent_cli.session.transcript import SessionRecord, TranscriptWriter
from agent_cli.subagent.runner import SubagentRunner
from agent_cli.subagent.store import NoteStore
from agent_cli.subagent.task import Task
from agent_cli.todo.reminder import TodoReminder
from agent_cli.todo.tracker import TodoTracker
from agent_cli.tools.compact import Compact
from agent_cli.tools.edit_file import EditFile
from agent_cli.tools.glob import Glob
from agent_cli.tools.grep import Grep
from agent_cli.tools.present_plan import asking_tools
from agent_cli.tools.read_file import ReadFile
from agent_cli.tools.registry import ToolRegistry
from agent_cli.tools.shell.bash import Bash
from agent_cli.tools.shell.bash_jobs import BashKill, BashOutput
from agent_cli.tools.todo_write import TodoWrite
from agent_cli.tools.web.fetch import WebFetch
from agent_cli.tools.write_file import WriteFile


def resolve_workspace(path: Path) -> Path:
    workspace = path.expanduser().resolve()
    if not workspace.is_dir():
        raise UsageError(f"--workspace {path}: not a directory")
    return workspace


def load(options: Options) -> tuple[Settings, Paths]:
    import os

    overrides: dict[str, Any] = {}
    model = options.model or os.environ.get("AGENT_MODEL")
    if model:
        overrides["model"] = model
    if options.permission_mode:
        overrides["permissions"] = {"mode": options.permission_mode}
    trusted = TrustStore().is_trusted(options.workspace)
    settings = load_settings(options.workspace, overrides, trusted=trusted)
    resolve_thresholds(settings)  # contradicting context thresholds: exit 2 before any work
    state = options.state_dir or Path(os.environ.get("AGENT_STATE_DIR") or options.workspace)
    return settings, Paths(state.expanduser().resolve())


def base_tools(jobs: JobBoard | None = None) -> list[AnyTool]:
    """`jobs`: where background shells go; None offers no background jobs."""
    shell: list[AnyTool] = [Bash(jobs)] if jobs is None else [Bash(jobs), *job_tools(jobs)]
    return [ReadFile(), WriteFile(), EditFile(), *shell, Glob(), Grep(), Recall(search_notes)]


def job_tools(jobs: JobBoard) -> list[AnyTool]:
    return [BashOutput(jobs), BashKill(jobs)]


def restore_target(options: Options, paths: Paths) -> Restored | None:
    if options.resume:
        found = find_session(paths, options.resume)
        warn_other_workspace(found, options.workspace)
        return fold(found)
    if options.continue_last:
        return fold(latest_session(paths, options.workspace))
    return None


def open_session(
    options: Options, settings: Settings, paths: Paths
) -> tuple[Session, Restored | None]:
    """A new session, or the one `options` resumes: its transcript is folded here, once."""
    secrets = secrets_from_env()
    restored = restore_target(options, paths)
    session_id = restored.id if restored else new_session_id()
    ctx = ToolContext(
        workspace=options.workspace,
        paths=paths,
        session_id=session_id,
        settings=settings,
        secrets=secrets,
    )
    session = Session(
        id=session_id,
        model=settings.model,
        settings=settings,
        tool_ctx=ctx,
        transcript=TranscriptWriter(
            paths.transcript(session_id), restored.ledger if restored else None
        ),
        todos=TodoTracker(settings.todo.max_items),
    )
    session.view_providers.append(session.todos.view)
    if restored is None:
        session.record(
            SessionRecord(id=session_id, workspace=str(options.workspace), model=settings.model)
        )
    else:
        session.messages = restored.messages
        for model, usage in restored.usage_by_model.items():  # the cost is priced again
            session.add_usage(usage, model)
        session.todos.restore([item.as_dict() for item in restored.todos])
    return session, restored


def assemble(
    session: Session,
    client: ModelClient,
    options: Options,
    approver: Approver | None = None,
    publish: Callable[[Event], None] | None = None,
    mcp: McpManager | None = None,
    jobs: JobBoard | None = None,
) -> Assembly:
    """The agent of a session with everything wired: tools, gate, subagents, context pipeline,
    todo reminder, hooks and episodic memory. `approver` answers permission questions (the
    REPL's; None denies them, headless); `publish` hears what happens outside a turn. `mcp`:
    servers already started by the runtime; None starts the configured ones here. `jobs`: the
    run's background jobs (None: a board of this session's own)."""
    jobs = jobs or JobBoard(session.paths, session.settings.jobs)
    hooks = Hooks(session.settings.hooks, session.id, options.workspace)
    permissions = Permissions(session.settings.permissions, approver or HeadlessApprover())
    resumed = bool(session.messages)
    project = wire_project_files(session, options.workspace, permissions, hooks, resumed)
    if approver is not None:  # rules the user approved here in chat ("don't ask again")
        rules = ApprovedRules(options.workspace)
        permissions.project_allow = rules.patterns()
        permissions.save_project_rule = rules.add
    runner = SubagentRunner(
        parent=session, client=client, store=NoteStore(session.paths), spawn=Agent
    )
    todo_write = TodoWrite(session.todos, session.record)
    task = Task(runner, project.agent_types if project else None)
    tools = [*base_tools(jobs), todo_write, task, Compact(session), *asking_tools(permissions)]
    tools += project.tools if project else []
    if session.settings.web.fetch:
        tools.append(WebFetch())
    if mcp is None:  # in the background: the first request does not wait for any server
        mcp = start_mcp(session.settings, options.workspace, session.paths.logs, _mode(permissions))
    server_tools = declarations(session.settings.web)
    gate = PolicyGate(permissions, hooks, project.gate_hooks if project else ())
    registry = ToolRegistry(tools, gate, mcp, server_tools)
    instructions = project_instructions(options.workspace, session.settings.instructions_max_chars)
    if instructions:
        session.view_providers.append(lambda: instructions)
    # episodic memory (§10): a new session starts with the workspace's newest episodes
    sections = [instructions, recent_episodes_section(session)]
    sections.append(project.system_section if project else "")
    system = build_system(options.workspace, "system.md", sections)
    reminder = TodoReminder(session.todos, session.settings.todo.reminder_rounds)
    stages, compactor = build_pipeline(session, request_overhead(system, registry.schemas))
    if project is not None:
        compactor = project.around_compaction(compactor)  # PreCompact hooks
    if publish is not None:
        session.usage_sink = publish
    memory = EpisodeManager(session, client, emit=publish)
    agent = Agent(
        session=session,
        client=client,
        registry=registry,
        system=system,
        guides=[reminder],
        stages=stages,
        compactor=compactor,
        observers=[memory],
        max_turns=options.max_turns,
        turn_hooks=hooks,
    )
    if publish is None:
        memory.emit = agent.emit
    runner.bind(agent.registry)  # subagents get the complete set, minus `task`
    if project is not None:  # commands expand before the turn; hooks in Claude Code's protocol
        project.bind(registry, session, permissions)
        agent.turn_hooks = TurnHooksChain(project.turn_hooks(hooks))
        limit = session.settings.project_files.stop_blocks_per_turn
        runner.child_hooks = project.child_hooks(limit)
    assembly = Assembly(agent, memory, jobs)
    if project is not None:
        assembly.on_end.append(project.session_end)
    return assembly


def _mode(permissions: Permissions) -> Callable[[], str]:
    return lambda: permissions.mode  # read at each request: plan mode narrows the MCP tools


def build_agent(
    session: Session, client: ModelClient, options: Options, approver: Approver | None = None
) -> Agent:
    """The agent alone (tests that drive the loop directly)."""
    return assemble(session, client, options, approver).agent


def start_logging(paths: Paths, quiet: bool) -> CallLog:
    secrets = secrets_from_env()
    setup_logging(paths, secrets, quiet=quiet)
    for folder in (paths.transcripts, paths.notes, paths.logs):
        durable.watch(folder)  # synced before the process ends without teardown
    return CallLog(paths.llm_calls, key_last4(secrets))


def make_client(
    settings: Settings, call_log: CallLog, on_sent: Callable[[], None] | None = None
) -> ModelClient:
    from agent_cli.model.anthropic import AnthropicClient  # the SDK import is slow: only here

    return AnthropicClient(settings, call_log, on_sent)


class Wiring:
    """What the Runtime asks of the composition root (it never imports this module)."""

    def __init__(self, settings: Settings, paths: Paths, call_log: CallLog) -> None:
        self.settings, self.paths, self.call_log = settings, paths, call_log
        self.jobs = JobBoard(paths, settings.jobs)

    def open_session(self, options: Options) -> tuple[Session, Restored | None]:
        return open_session(options, self.settings, self.paths)

    def make_client(self, on_sent: Callable[[], None] | None = None) -> ModelClient:
        return make_client(self.settings, self.call_log, on_sent)

    def assemble(
        self,
        session: Session,
        client: ModelClient,
        options: Options,
        approver: Approver | None,
        publish: Callable[[Event], None],
        mcp: McpManager | None = None,
        jobs: JobBoard | None = None,
    ) -> Assembly:
        return assemble(session, client, options, approver, publish, mcp, jobs)

    def start_mcp(self, workspace: Path, mode: Callable[[], str], eager: bool) -> McpManager | None:
        return start_mcp(self.settings, workspace, self.paths.logs, mode, eager)


def build_runtime(
    options: Options, approver: Approver | None = None, quiet: bool = False
) -> Runtime:
    """Settings, credentials, logging and the session: a Runtime ready for its first turn (the
    SDK client is made when that turn needs it). `quiet`: nothing but warnings on stderr."""
    settings, paths = load(options)
    require_credentials()
    paths.require_writable()  # a read-only workspace: one line, before any work
    call_log = start_logging(paths, quiet)
    wiring = Wiring(settings, paths, call_log)
    if options.one_shot and not settings.jobs.move_in_run:
        wiring.jobs.move_after_s = None  # `agent run` waits for its commands unless asked
    session, restored = wiring.open_session(options)
    return Runtime(wiring, options, session, restored, approver)
