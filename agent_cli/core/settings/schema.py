"""One settings model: `.agent/settings.json` over `~/.config/agent/settings.json` over defaults.

Every threshold the product uses lives here, documented and bounded. Unknown keys and bad values
raise ConfigError naming the key (the CLI turns that into exit 2).

A workspace's own settings come with the repository, so what in them widens what runs unasked
(a wider permission mode, allow rules, hooks) applies only when the user trusts the workspace
(`agent_cli.policy.trust`); what narrows (deny rules, a narrower mode, thresholds) always applies.
User settings and command-line flags are the user's own and always apply.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator

from agent_cli.core.errors import ConfigError
from agent_cli.core.options import PermissionMode
from agent_cli.core.settings.context import CacheTtlSettings
from agent_cli.core.settings.context import ContextSettings as ContextSettings
from agent_cli.core.settings.env_layer import VARIABLE, env_settings
from agent_cli.core.settings.features import DEFAULT_MODEL as DEFAULT_MODEL
from agent_cli.core.settings.features import (
    AutoSettings,
    BudgetSettings,
    CheckpointSettings,
    JobsSettings,
    MemorySettings,
    NotifySettings,
    ProjectFilesSettings,
    ServerSettings,
    WebSettings,
)
from agent_cli.core.settings.models import Provider, default_aliases
from agent_cli.core.settings.sandbox import SandboxSettings
from agent_cli.core.settings.sections import Narrow, Sections, extended, untrusted, without
from agent_cli.core.settings.strict import StrictSettings
from agent_cli.core.settings.thinking import ThinkingSettings, budget_problem

if TYPE_CHECKING:
    from agent_cli.core.settings.layers import Layer

UNKNOWN_MODEL_WINDOW = 200_000


class Price(StrictSettings):
    """US dollars per million tokens."""

    input: float = Field(ge=0, description="Uncached input tokens.")
    output: float = Field(ge=0, description="Output tokens.")
    cache_read: float = Field(ge=0, description="Input tokens read from the prompt cache.")
    cache_write: float = Field(ge=0, description="Input tokens written to the prompt cache.")
    cache_write_1h: float | None = Field(
        default=None, ge=0, description="Input tokens written for an hour (unset: 2x input)."
    )
    web_search_per_1k: float = Field(
        default=10.0, ge=0, description="US dollars per 1,000 web searches (the server tool)."
    )


def _default_prices() -> dict[str, Price]:
    sonnet = Price(input=3.0, output=15.0, cache_read=0.30, cache_write=3.75)
    opus = Price(input=5.0, output=25.0, cache_read=0.50, cache_write=6.25)
    haiku = Price(input=1.0, output=5.0, cache_read=0.10, cache_write=1.25)
    return {
        "claude-sonnet-4-5": sonnet,
        "claude-sonnet-4-6": sonnet,
        "claude-opus-4-5": opus,
        "claude-opus-4-6": opus,
        "claude-haiku-4-5": haiku,
    }


class HookSpec(StrictSettings):
    """One shell command run for a hook event, with a JSON description on stdin."""

    command: str = Field(min_length=1, description="Shell command to run.")
    matcher: str | None = Field(
        default=None, description="Regex on the tool name; no matcher means every tool."
    )
    timeout_s: float = Field(default=10, gt=0, le=600, description="Seconds before it is killed.")
    on_failure: Literal["pass", "block"] = Field(
        default="pass",
        description="A hook that cannot start, times out or exits other than 0/2: "
        "'pass' lets the event go on, 'block' denies it (pre_tool_use, user_prompt_submit).",
    )

    @field_validator("matcher")
    @classmethod
    def _matcher_compiles(cls, value: str | None) -> str | None:
        # a matcher that cannot match would skip the hook silently: a guard failing open
        if value is not None:
            try:
                re.compile(value)
            except re.error as e:
                raise ValueError(f"not a valid regular expression ({e})") from e
        return value


class HooksSettings(StrictSettings):
    pre_tool_use: list[HookSpec] = Field(default_factory=list, description="May deny a call.")
    post_tool_use: list[HookSpec] = Field(default_factory=list, description="After a call.")
    user_prompt_submit: list[HookSpec] = Field(
        default_factory=list, description="May veto a prompt."
    )
    stop: list[HookSpec] = Field(default_factory=list, description="When a turn ends.")
    notification: list[HookSpec] = Field(default_factory=list, description="When it needs you.")

    @model_validator(mode="after")
    def _block_only_where_it_can(self) -> HooksSettings:
        # a block that cannot block would be a guard failing open without a word
        for event in ("post_tool_use", "stop", "notification"):
            for i, spec in enumerate(getattr(self, event)):
                if spec.on_failure == "block":
                    raise ValueError(
                        f"{event}.{i}.on_failure: 'block' applies only to pre_tool_use "
                        "and user_prompt_submit hooks, which can deny"
                    )
        return self


class PermissionSettings(StrictSettings):
    mode: PermissionMode = Field(
        default="default", description="default, accept-edits, bypass, plan, auto."
    )
    allow: list[str] = Field(
        default_factory=list,
        description="Patterns allowed without a question: a tool name, or 'bash(<glob>)'.",
    )
    deny: list[str] = Field(
        default_factory=list,
        description="Patterns refused in every mode: a tool name, or 'bash(<glob>)'.",
    )


class TodoSettings(StrictSettings):
    reminder_rounds: int = Field(
        default=3, ge=1, le=100, description="Tool rounds without todo_write before a reminder."
    )
    max_items: int = Field(default=50, ge=1, le=500, description="Items a todo list may hold.")


class SubagentSettings(StrictSettings):
    max_turns: int = Field(default=30, ge=1, le=500, description="Turn limit of one subagent.")
    concurrency: int = Field(default=4, ge=1, le=32, description="task calls run at once.")


class Settings(StrictSettings):
    """Everything configurable. Every field is documented and bounded."""

    # built when first used: a run validates this model extended by its extensions' sections
    # (sections.py), so building this one too would be paid for nothing
    model_config = ConfigDict(**StrictSettings.model_config, defer_build=True)

    model: str = Field(default=DEFAULT_MODEL, min_length=1, description="Model id.")
    max_tokens: int = Field(default=16_000, ge=1, le=128_000, description="Output tokens a reply.")
    max_retries: int = Field(
        default=4, ge=0, le=20, description="SDK retries for 429/5xx/529 on one request."
    )
    stream_retries: int = Field(
        default=2, ge=0, le=10, description="Whole-request retries when a stream breaks mid-reply."
    )
    request_timeout_s: float = Field(default=600, gt=0, description="Timeout of one model request.")
    max_turns: int = Field(
        default=100, ge=1, le=10_000, description="Model requests per prompt in `agent run`."
    )
    max_continuations: int = Field(
        default=2, ge=0, le=5, description="Continuations asked for after stop_reason max_tokens."
    )
    background_wait_s: float = Field(
        default=30, ge=0, le=600, description="`agent run` waits this long for background work."
    )
    tool_result_limit_chars: int = Field(
        default=30_000, ge=1_000, description="A tool output over this is saved and previewed."
    )
    tool_preview_chars: int = Field(
        default=2_000, ge=200, description="Characters of a saved output kept as its preview."
    )
    bash_timeout_s: float = Field(default=120, gt=0, le=600, description="Default bash timeout.")
    instructions_max_chars: int = Field(
        default=20_000, ge=0, description="Cap on AGENTS.md / CLAUDE.md text in the system prompt."
    )
    context_windows: dict[str, int] = Field(
        default_factory=dict,
        description="Context window per model id; unknown models count as 200,000 tokens.",
    )
    prices: dict[str, Price] = Field(
        default_factory=_default_prices, description="Price per model id; unknown means no cost."
    )
    permissions: PermissionSettings = Field(default_factory=PermissionSettings)
    auto: AutoSettings = Field(default_factory=AutoSettings)  # the reviewer of auto mode
    hooks: HooksSettings = Field(default_factory=HooksSettings)
    todo: TodoSettings = Field(default_factory=TodoSettings)
    subagent: SubagentSettings = Field(default_factory=SubagentSettings)
    cache_ttl: CacheTtlSettings = Field(
        default_factory=CacheTtlSettings,
        description='Prompt-cache TTL, "5m" or "1h": {"main", "subagents"} or one for both.',
    )
    context: ContextSettings = Field(default_factory=ContextSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    web: WebSettings = Field(default_factory=WebSettings)
    checkpoints: CheckpointSettings = Field(default_factory=CheckpointSettings)
    project_files: ProjectFilesSettings = Field(default_factory=ProjectFilesSettings)
    jobs: JobsSettings = Field(default_factory=JobsSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    notify: NotifySettings = Field(default_factory=NotifySettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    thinking: ThinkingSettings = Field(default_factory=ThinkingSettings)
    budget: BudgetSettings = Field(default_factory=BudgetSettings)
    vim_mode: bool = Field(default=False, description="Vi keys in agent chat's input (/vim).")
    pass_env: list[str] = Field(
        default_factory=list,
        description="Environment variables named like credentials (`*_TOKEN`, `*_API_KEY`, "
        "`SSH_AUTH_SOCK` ...) that programs the agent starts outside the sandbox (hooks, "
        "language and MCP servers, checks, the status line) still get; the agent's own key "
        "never. A workspace's own settings may name them only once it is trusted.",
    )
    stream_idle_timeout_s: float = Field(
        default=120,
        gt=0,
        le=3_600,
        description="A model stream silent this long (before its first event or between two; "
        "the API sends pings) is abandoned and asked again, as a retry.",
    )
    max_retry_wait_s: float = Field(
        default=300,
        ge=0,
        le=86_400,
        description="Longest wait a 429/529's retry-after is honoured for (exactly); a longer "
        "one ends the request with one line.",
    )
    provider: Provider = Field(
        default="anthropic",
        description="Where the model is reached: anthropic (ANTHROPIC_BASE_URL and the like), "
        "bedrock, vertex, foundry (each through the SDK's own client; also AGENT_PROVIDER).",
    )
    model_aliases: dict[str, str] = Field(
        default_factory=default_aliases,
        description="Model names a user may write (`sonnet`, `opus`, `haiku` and any of your "
        "own) -> the endpoint's model; ANTHROPIC_DEFAULT_{SONNET,OPUS,HAIKU}_MODEL override.",
    )

    @model_validator(mode="after")
    def _thinking_fits(self) -> Settings:
        if problem := budget_problem(self.thinking.budget_tokens, self.max_tokens):
            raise ValueError(f"thinking.budget_tokens: {problem}")
        return self

    @model_validator(mode="after")
    def _compact_fits(self) -> Settings:
        value = self.context.compact_for(self.model)
        window = self.context_window()
        if isinstance(value, int) and value > window:
            raise ValueError(
                f"context.compact_at: {value:,} tokens is past the window ({window:,})"
            )
        return self

    def context_window(self, model: str | None = None) -> int:
        return self.context_windows.get(model or self.model, UNKNOWN_MODEL_WINDOW)


def user_config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "agent"


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from e
    except RecursionError as e:
        raise ConfigError(f"{path}: nested too deeply to be settings") from e
    except (OSError, json.JSONDecodeError) as e:
        raise ConfigError(f"{path}: not valid JSON ({e})") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the settings file must hold a JSON object")
    return data


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def parse_settings(
    data: dict[str, Any], source: str | list[Layer] = "settings", sections: Sections = ()
) -> Settings:
    """`source`: where `data` came from, or the files merged into it (the error names the one
    holding the bad key). `sections`: the installed extensions' (sections.py)."""
    try:
        return extended(Settings, sections).model_validate(data)
    except RecursionError as e:
        raise ConfigError(f"{source}: nested too deeply to be settings") from e
    except ValidationError as e:
        from agent_cli.core.settings.layers import holder  # which file holds the bad key

        first = e.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "(top level)"
        where = source if isinstance(source, str) else holder(first["loc"], source)
        raise ConfigError(f"{where}: bad setting '{key}': {first['msg']}") from e


def layer_keys(workspace: Path, overrides: dict[str, Any] | None = None) -> frozenset[str]:
    """The top-level keys any layer sets: what asks for an extension before it is loaded."""
    local = workspace / ".agent" / "settings.json"
    layers = [_read_json(user_config_dir() / "settings.json"), _read_json(local), env_settings()]
    return frozenset(key for layer in [*layers, overrides or {}] for key in layer)


def load_settings(
    workspace: Path,
    overrides: dict[str, Any] | None = None,
    *,
    trusted: bool | Callable[[], bool] = False,
    sections: Sections = (),
    ignored: frozenset[str] = frozenset(),
    narrowers: Mapping[str, Narrow] | None = None,
) -> Settings:
    """User settings, then the workspace's (only what narrows unless `trusted`: asked, when
    it is how to ask, only of a workspace with settings of its own), then `AGENT_SETTINGS`,
    then `overrides` (command-line flags). Every layer is validated, applied
    or not. `sections`: the installed extensions'; `ignored`: extensions that failed to load;
    `narrowers`: the extensions' own narrowing of an untrusted workspace's section."""
    user = user_config_dir() / "settings.json"
    local = workspace / ".agent" / "settings.json"
    user_data, local_data = without(_read_json(user), ignored), without(_read_json(local), ignored)
    layers = [(str(user), user_data), (str(local), local_data)]
    settings = parse_settings(_merge(user_data, local_data), layers, sections)
    if local_data and not (trusted() if callable(trusted) else trusted):
        from agent_cli.core.settings.narrowing import narrowing_only, user_mode  # only then

        narrowed = narrowing_only(local_data, user_mode(user_data), user_mode(user_data, "sandbox"))
        narrowed = untrusted(narrowed, sections, user_data, narrowers)
        settings = parse_settings(_merge(user_data, narrowed), layers, sections)
    if from_env := without(env_settings(), ignored):
        settings = parse_settings(_merge(settings.model_dump(), from_env), VARIABLE, sections)
    if overrides:
        settings = parse_settings(
            _merge(settings.model_dump(), overrides), "command line", sections
        )
    return settings
