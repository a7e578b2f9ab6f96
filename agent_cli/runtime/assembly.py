"""The agent of one session, assembled in one pass in dependency order: project files and
the permissions they shape, the tools (the subagents' set first, then the session's with
`task`), the gate, the context pipeline, episodic memory and the agent. Nothing is patched
once built; a part that project files do not give is an empty value, not a `None`."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from agent_cli.context.breakdown import metered
from agent_cli.context.pipeline import build_pipeline, request_overhead
from agent_cli.context.spending import BudgetStage
from agent_cli.core.asking import PlanDecisionResult
from agent_cli.core.events import Event, WarningEvent
from agent_cli.core.options import Options
from agent_cli.core.prompts.instructions import project_instructions
from agent_cli.core.prompts.system import build_system
from agent_cli.core.tool_contract import AnyTool, HostReview, UserAllows
from agent_cli.loop.agent import Agent
from agent_cli.loop.outbox import Outbox
from agent_cli.memory.manager import EpisodeManager
from agent_cli.memory.recall import Recall, lazy_notes_search
from agent_cli.memory.setup import recent_episodes_section
from agent_cli.model.client import ModelClient
from agent_cli.model.server_tools import declarations
from agent_cli.policy.approval import REVIEWER, Approver, HeadlessApprover
from agent_cli.policy.gate import PolicyGate
from agent_cli.policy.hooks import Hooks
from agent_cli.policy.permissions import Permissions
from agent_cli.policy.turn_hooks import TurnHooksChain
from agent_cli.runtime.extensions.contract import ExtensionContext
from agent_cli.runtime.extensions.registry import NO_EXTENSIONS, Extensions, log_problems
from agent_cli.runtime.ports import Assembly
from agent_cli.runtime.workspace_part import PORT as WORKSPACE_PART
from agent_cli.runtime.workspace_part import NoWorkspacePart, WorkspacePart, WorkspaceParts
from agent_cli.session.state import Session
from agent_cli.subagent.task import Task
from agent_cli.todo.reminder import TodoReminder
from agent_cli.tools.compact import Compact
from agent_cli.tools.edit_file import EditFile
from agent_cli.tools.glob import Glob
from agent_cli.tools.grep import Grep
from agent_cli.tools.present_plan import PlanModeTools, asking_tools
from agent_cli.tools.read_file import ReadFile
from agent_cli.tools.registry import ToolRegistry, ToolSource
from agent_cli.tools.shell.bash import JOBS, Bash, no_wrapper
from agent_cli.tools.shell.confined import SHELL_WRAPPER
from agent_cli.tools.todo_write import TodoWrite
from agent_cli.tools.write_file import WriteFile

if TYPE_CHECKING:
    from agent_cli.subagent.runner import SubagentRunner

log = logging.getLogger(__name__)


def base_tools(
    jobs: Callable[[], object | None] = no_wrapper,
    shell_wrapper: Callable[[], object | None] = no_wrapper,
) -> list[AnyTool]:
    """`jobs`: the session's port where bash's background shells go (none: it offers none).
    `shell_wrapper`: the session's port that confines each command (none: they run as they
    are). Bash asks each when a command first needs it."""
    bash = Bash(jobs, shell_wrapper)
    return [ReadFile(), WriteFile(), EditFile(), bash, Glob(), Grep(), Recall(lazy_notes_search)]


class PlanHandOver:
    """`agent run`: nobody approves a plan there, so the run ends with the round that
    presented it (the plan event carries it to the output)."""

    def __init__(self) -> None:
        self.plan: str | None = None

    async def present(self, plan: str) -> PlanDecisionResult:
        self.plan = plan
        return PlanDecisionResult(choice="handed_over")

    def presented(self) -> bool:
        return self.plan is not None


def _permissions(
    session: Session,
    options: Options,
    approver: Approver | None,
    project: WorkspacePart,
    reviewer: Callable[[], object | None],
) -> Permissions:
    """The session's permissions: settings, project rules, and in chat the rules the user
    approved here before ("don't ask again in this project"). `reviewer`: auto mode's, made
    when first asked for; a run started in auto mode makes it now (its extension's stages
    must be there from the first request)."""
    rules = project.rules
    if session.settings.permissions.mode == "auto":
        reviewer()
    permissions = Permissions(
        session.settings.permissions,
        project.approver(approver or HeadlessApprover()),
        extra_allow=list(rules.allow),
        extra_deny=list(rules.deny),
        ask_rules=list(rules.ask),
        reviewer=reviewer,
    )
    if approver is None:
        return permissions
    from agent_cli.policy.approved_rules import ApprovedRules  # someone to ask: chat

    approved = ApprovedRules(options.workspace)
    permissions.project_allow, permissions.save_project_rule = approved.patterns(), approved.add
    return permissions


def assemble(
    session: Session,
    client: ModelClient,
    options: Options,
    approver: Approver | None = None,
    publish: Callable[[Event], None] | None = None,
    extra_tools: Sequence[AnyTool] = (),
    extensions: Extensions = NO_EXTENSIONS,
    services: Callable[[str], object | None] = lambda name: None,
) -> Assembly:
    """The agent of a session with everything wired: tools, gate, subagents, context pipeline,
    todo reminder, hooks and episodic memory. `approver` answers permission questions (the
    REPL's; None denies them, headless); `publish` hears what happens outside a turn.
    `extra_tools`: the session's alone (a subagent never gets them), e.g. `--json-schema`'s
    final tool. `extensions`: the run's; their tools come after the agent's own (subagents get
    them too), their stages, guides, observers and middleware after the spine's (their turn
    wrappers outside it all); the tools that come and go between requests (MCP servers') are
    the port "tool_source"; the port "jobs" is bash's background jobs (none without it).
    `services`: the run's extension services by name (the Runtime's `extension`)."""
    settings, workspace = session.settings, options.workspace
    hooks = Hooks(settings.hooks, session.id, workspace)
    context = contexts(session, workspace, services, extensions)
    project = workspace_part(session, extensions, context)
    reviewer = port_when_asked(extensions, REVIEWER, context)  # auto mode's
    permissions = _permissions(session, options, approver, project, reviewer)
    session.tool_ctx.review_host = _host_review(permissions)  # a confined command's hosts
    gate = PolicyGate(permissions, hooks, project.gate_hooks())
    server_tools = declarations(settings.web)
    jobs = port_when_asked(extensions, JOBS, context)  # background jobs, if one provides them
    wrapper = port_when_asked(extensions, SHELL_WRAPPER, context)
    before_task = [*base_tools(jobs, wrapper), TodoWrite(session.todos, session.record)]
    after_task = [Compact(session), *asking_tools(), *project.tools(permissions)]
    own = ["task", *(t.name for t in [*before_task, *after_task, *extra_tools])]
    own += [str(t["name"]) for t in server_tools]
    source = _tool_source(extensions, context)
    after_task += _extension_tools(extensions, context, own, publish)
    # subagents get the complete set minus `task` (and what the runner leaves out itself)
    children = ToolRegistry([*before_task, *after_task], gate, source, server_tools)
    runner = _runner(session, client, children, project)
    isolation = lambda name: extensions.port(name, context)  # noqa: E731 - asked when used
    task = Task(runner, project.agent_types(permissions, hooks), isolation)
    tools = [*before_task, task, *after_task, *extra_tools]
    registry = ToolRegistry(tools, gate, PlanModeTools(_mode(permissions), source), server_tools)
    commands = project.commands(registry, permissions)  # they expand before the turn
    instructions = project_instructions(workspace, settings.instructions_max_chars)
    if instructions:
        session.view_providers.append(lambda: instructions)
    # episodic memory (§10): a new session starts with the workspace's newest episodes
    skills = project.system_section()
    sections = [instructions, recent_episodes_section(session), skills]
    system = build_system(workspace, "system.md", sections)
    stages, compactor = build_pipeline(session, request_overhead(system, registry.schemas))
    schemas = lambda: registry.schemas  # noqa: E731 - what is offered at each request
    meter = metered(
        compactor.state, system, [instructions, skills], schemas, registry.fixed_schemas
    )
    outbox = Outbox()
    if publish is not None:
        session.usage_sink = publish
    memory = EpisodeManager(session, client, emit=publish or outbox.emit)
    handover = PlanHandOver() if options.one_shot else None
    if handover is not None:
        session.tool_ctx.present_plan = handover.present
    agent = Agent(
        session=session,
        client=client,
        registry=registry,
        system=system,
        guides=[
            TodoReminder(session.todos, settings.todo.reminder_rounds),
            *extensions.made("guides", context),
        ],
        # before a request is built or sent
        stages=[BudgetStage(settings.budget), *extensions.made("stages", context), *stages],
        compactor=project.around_compaction(compactor),  # PreCompact hooks
        observers=[memory, *extensions.made("observers", context)],
        max_turns=options.max_turns,
        stop_after_round=handover.presented if handover else None,
        turn_hooks=TurnHooksChain(
            [*project.turn_hooks(hooks, commands), *extensions.made("middleware", context)]
        ),
        outbox=outbox,
        wrappers=extensions.made("around_turn", context),
    )
    return Assembly(agent, memory, on_end=[project.session_end], meter=meter)


def workspace_part(
    session: Session, extensions: Extensions, context: Callable[[str], ExtensionContext]
) -> WorkspacePart:
    """What the workspace's own files add to this session (project files, when an extension
    answers the port); nothing but the built-in subagent type otherwise."""
    parts = cast("WorkspaceParts | None", extensions.port(WORKSPACE_PART, context))
    if parts is None:
        return NoWorkspacePart(session)
    return parts(session, resumed=bool(session.messages))


def _host_review(permissions: Permissions) -> HostReview:
    """Auto mode's answer to a confined command's unlisted host; its module is imported at the
    first such host, which a plain run never meets."""

    async def review(
        host: str, port: int, command: str, user: UserAllows
    ) -> tuple[bool, str] | None:
        from agent_cli.policy.host_review import host_review

        return await host_review(permissions)(host, port, command, user)

    return review


def contexts(
    session: Session,
    workspace: Path,
    services: Callable[[str], object | None],
    extensions: Extensions = NO_EXTENSIONS,
) -> Callable[[str], ExtensionContext]:
    """The context each extension's contributions to this session are made with; its `ports`
    are the session's, each made once by a loaded extension."""

    made: dict[str, object | None] = {}

    def context(name: str) -> ExtensionContext:
        settings = session.settings
        return ExtensionContext(
            name, workspace, session.paths, settings, session.id, services, port
        )

    def port(name: str) -> object | None:  # made once per session, by a loaded extension
        if name not in made:
            made[name] = extensions.port(name, context, wake=False)
        return made[name]

    return context


def port_when_asked(
    extensions: Extensions, name: str, context: Callable[[str], ExtensionContext]
) -> Callable[[], object | None]:
    """The session's port `name`, made the first time it is asked for (a plain turn that runs
    no command never makes the shell's wrapper, nor imports what provides it)."""
    made: list[object | None] = []

    def port() -> object | None:
        if not made:
            made.append(extensions.port(name, context))
        return made[0]

    return port


def _extension_tools(
    extensions: Extensions,
    context: Callable[[str], ExtensionContext],
    own: list[str],
    publish: Callable[[Event], None] | None,
) -> list[AnyTool]:
    """The extensions' tools for this session; one whose name is in `own` (the agent's tool
    names) or an earlier extension's is left out, and a warning says so."""
    tools, problems = extensions.tools(context, own)
    for problem in problems:
        if publish is None:
            log.warning(problem.line)
        else:  # the front end says it; the log file gets it too
            publish(WarningEvent(message=problem.line))
            log_problems([problem])
    return tools


def _tool_source(
    extensions: Extensions, context: Callable[[str], ExtensionContext]
) -> ToolSource | None:
    """The tools that come and go (an extension's port "tool_source", e.g. MCP servers'),
    starting in the background: the first request does not wait for them."""
    source = extensions.port("tool_source", context)
    return source if isinstance(source, ToolSource) else None


def _runner(
    session: Session, client: ModelClient, children: ToolRegistry, project: WorkspacePart
) -> Callable[[], SubagentRunner]:
    """What runs `task`'s subagents, made when a task first runs: a turn that delegates
    nothing never imports the runner, its notes store or their renderers."""
    hooks = project.child_hooks()

    def make() -> SubagentRunner:
        from agent_cli.subagent.runner import SubagentRunner
        from agent_cli.subagent.store import NoteStore

        store = NoteStore(session.paths)
        return SubagentRunner(
            parent=session, client=client, store=store, spawn=Agent, tools=children,
            child_hooks=hooks,
        )  # fmt: skip

    return make


def _mode(permissions: Permissions) -> Callable[[], str]:
    return lambda: permissions.mode  # read at each request: plan mode offers present_plan


def build_agent(
    session: Session,
    client: ModelClient,
    options: Options,
    approver: Approver | None = None,
    extensions: Extensions = NO_EXTENSIONS,
) -> Agent:
    """The agent alone (tests that drive the loop directly), with `extensions` (none: the
    spine's own tools)."""
    return assemble(session, client, options, approver, extensions=extensions).agent
