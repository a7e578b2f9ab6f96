"""The composition root: settings, state paths, logging, the model client and the Runtime the
front ends drive. A session is opened by `opening.py` and its agent assembled by `assembly.py`
(extensions — pipeline stages, guides, observers, extra tools — are wired there and nowhere
else); this module is what the Runtime calls them through.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.context.tokens import resolve_thresholds
from agent_cli.core.errors import UsageError
from agent_cli.core.events import Event
from agent_cli.core.files import durable
from agent_cli.core.files.logs import secrets_from_env, setup_logging
from agent_cli.core.files.paths import Paths
from agent_cli.core.options import Options
from agent_cli.core.outside.env import pass_names
from agent_cli.core.settings.models import PROVIDER_VARIABLE, resolve_model
from agent_cli.core.settings.schema import Settings, layer_keys, load_settings
from agent_cli.core.tool_contract import AnyTool
from agent_cli.model.call_log import CallLog, key_last4
from agent_cli.model.client import ModelClient
from agent_cli.policy.approval import Approver
from agent_cli.runtime.assembly import assemble
from agent_cli.runtime.extensions.discovery import EVERYTHING, Asking
from agent_cli.runtime.extensions.registry import (
    NO_EXTENSIONS,
    Extensions,
    discover,
    log_problems,
    say,
)
from agent_cli.runtime.opening import open_session
from agent_cli.runtime.ports import Assembly
from agent_cli.runtime.providers import ModelClientPort, provider_port, require_provider
from agent_cli.runtime.runtime import Runtime
from agent_cli.session.state import Session

if TYPE_CHECKING:
    from agent_cli.session.resume import RestoredSession


def resolve_workspace(path: Path) -> Path:
    workspace = path.expanduser().resolve()
    if not workspace.is_dir():
        raise UsageError(f"--workspace {path}: not a directory")
    return workspace


def installed(asking: Asking = EVERYTHING) -> Extensions:
    """The installed extensions and the built-ins `asking` asks for (the rest dormant until
    asked for), what failed said on stderr (one line each)."""
    extensions = discover(asking=asking)
    say(extensions.problems)
    return extensions


def asking(options: Options, overrides: dict[str, Any] | None = None) -> Asking:
    """What this run asks for, before any extension is imported: `agent run` what its settings,
    workspace and command line name; a chat everything."""
    if not options.one_shot:  # a chat offers every feature's slash commands from its start
        return EVERYTHING
    return Asking(layer_keys(options.workspace, overrides), options.workspace, "run")


def overrides_of(options: Options) -> dict[str, Any]:
    """The command line's (and its variables') settings: the last layer."""
    import os

    overrides: dict[str, Any] = {}
    model = options.model or os.environ.get("AGENT_MODEL")
    if model:
        overrides["model"] = model
    if options.permission_mode:
        overrides["permissions"] = {"mode": options.permission_mode}
    if options.max_cost_usd is not None:
        overrides["budget"] = {"max_cost_usd": options.max_cost_usd}
    if provider := os.environ.get(PROVIDER_VARIABLE):  # a bad one: exit 2 naming `provider`
        overrides["provider"] = provider
    sandbox = options.sandbox or os.environ.get("AGENT_SANDBOX")
    if sandbox:  # a bad value is a ConfigError naming `sandbox.mode` (exit 2)
        overrides["sandbox"] = {"mode": sandbox}
    return overrides


def load(options: Options, extensions: Extensions | None = None) -> tuple[Settings, Paths]:
    """The settings (with the extensions' sections: those this run asks for when not given)
    and the state paths."""
    import os

    overrides = overrides_of(options)
    extensions = installed(asking(options, overrides)) if extensions is None else extensions
    sections, ignored = extensions.sections(), extensions.ignored()
    settings = load_settings(
        options.workspace, overrides, trusted=lambda: _trusted(options.workspace),
        sections=sections, ignored=ignored, narrowers=extensions.narrowers(),
    )  # fmt: skip
    settings.model = resolve_model(settings.model, settings)  # `sonnet`, `--model haiku`
    resolve_thresholds(settings)  # contradicting context thresholds: exit 2 before any work
    state = options.state_dir or Path(os.environ.get("AGENT_STATE_DIR") or options.workspace)
    return settings, Paths(state.expanduser().resolve())


def _trusted(workspace: Path) -> bool:
    """Asked only of a workspace with settings of its own: the trust store is not read where
    nothing needs trust."""
    from agent_cli.policy.trust import TrustStore

    return TrustStore().is_trusted(workspace)


def start_logging(paths: Paths, quiet: bool) -> CallLog:
    secrets = secrets_from_env()
    setup_logging(paths, secrets, quiet=quiet)
    for folder in (paths.transcripts, paths.notes, paths.logs):
        durable.watch(folder)  # synced before the process ends without teardown
    return CallLog(paths.llm_calls, key_last4(secrets))


def make_client(
    settings: Settings,
    call_log: CallLog,
    on_sent: Callable[[], None] | None = None,
    reach: Callable[[], ModelClientPort] | None = None,
) -> ModelClient:
    """Anthropic's API (or one like it), else the client `reach()` (the provider's port) makes."""
    if settings.provider != "anthropic" and reach is not None:
        return reach().make(settings, call_log, on_sent)
    from agent_cli.model.anthropic import AnthropicClient  # the SDK import is slow: only here

    return AnthropicClient(settings, call_log, on_sent)


class CompositionRoot:
    """What the Runtime asks of the composition root (runtime/ports.py's Composer; the
    Runtime never imports this module). `extra_tools`: the front end's own, for each session."""

    def __init__(
        self,
        settings: Settings,
        paths: Paths,
        call_log: CallLog,
        extra_tools: Sequence[AnyTool] = (),
        extensions: Extensions | None = None,
    ) -> None:
        self.settings, self.paths, self.call_log = settings, paths, call_log
        self.extensions = extensions if extensions is not None else NO_EXTENSIONS
        self.extra_tools = tuple(extra_tools)

    def open_session(self, options: Options) -> tuple[Session, RestoredSession | None]:
        return open_session(options, self.settings, self.paths)

    def make_client(self, on_sent: Callable[[], None] | None = None) -> ModelClient:
        def reach() -> ModelClientPort:
            return provider_port(self.settings, self.paths, self.extensions)

        return make_client(self.settings, self.call_log, on_sent, reach)

    def assemble(
        self,
        session: Session,
        client: ModelClient,
        options: Options,
        approver: Approver | None,
        publish: Callable[[Event], None],
        services: Callable[[str], object | None] = lambda name: None,
    ) -> Assembly:
        return assemble(
            session, client, options, approver, publish, self.extra_tools,
            self.extensions, services,
        )  # fmt: skip

    async def aclose(self) -> None:
        """What the root started for the whole run ends with it: the extensions' services."""
        await self.extensions.aclose()


def build_runtime(
    options: Options,
    approver: Approver | None = None,
    quiet: bool = False,
    extra_tools: Sequence[AnyTool] = (),
    extensions: Extensions | None = None,
) -> Runtime:
    """Settings, credentials, logging and the session: a Runtime ready for its first turn (the
    SDK client is made when that turn needs it). `quiet`: nothing but warnings on stderr.
    `extra_tools`: the front end's own tools, offered to every session's agent. `extensions`:
    the run's (None: `installed()`, what failed said on stderr)."""
    if extensions is None:
        extensions = installed(asking(options, overrides_of(options)))
    settings, paths = load(options, extensions)
    require_provider(settings, paths, extensions)
    pass_names(settings.pass_env)
    paths.require_writable()  # a read-only workspace: one line, before any work
    call_log = start_logging(paths, quiet)
    log_problems(extensions.problems)
    if options.one_shot:  # `agent run` stops at a turn limit: `--max-turns` or the settings'
        options = replace(options, max_turns=options.max_turns or settings.max_turns)
    root = CompositionRoot(settings, paths, call_log, extra_tools, extensions)
    session, restored = root.open_session(options)
    return Runtime(root, options, session, restored, approver)
