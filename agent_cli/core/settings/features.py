"""The settings of the newer capabilities (project files, the web, checkpoints): sections of
the one Settings model in `settings.py`, kept apart so that module stays readable."""

from __future__ import annotations

from pydantic import Field, field_validator

from agent_cli.core.settings.strict import StrictSettings

DEFAULT_MODEL = "claude-sonnet-4-6"


class ProjectFilesSettings(StrictSettings):
    """Commands, subagent types, skills and hooks from `.agent/`, `.agents/`, `.claude/`."""

    enabled: bool = Field(default=True, description="Read project files at all.")
    model_aliases: dict[str, str] = Field(
        default_factory=dict,
        description="Aliases for project files only (`model: fast` in a file), over the "
        "top-level `model_aliases`.",
    )
    skill_description_chars: int = Field(
        default=200, ge=20, le=1_024, description="Characters of each skill's description sent."
    )
    skills_listing_chars: int = Field(
        default=8_000, ge=0, le=50_000, description="Cap on the whole skills block of a request."
    )
    agent_types_chars: int = Field(
        default=3_000, ge=0, le=20_000, description="Cap on the agent types in task's description."
    )
    command_output_chars: int = Field(
        default=10_000, ge=100, le=200_000, description="Output of one !`cmd` line kept inline."
    )
    command_timeout_s: float = Field(
        default=30, gt=0, le=600, description="Timeout of one !`cmd` line of a command."
    )
    inline_file_chars: int = Field(
        default=50_000, ge=100, le=500_000, description="Cap on one @path file inlined."
    )
    stop_blocks_per_turn: int = Field(
        default=3, ge=0, le=20, description="Stop-hook blocks honoured in one turn (loop guard)."
    )


def _domain_names(value: list[str]) -> list[str]:
    domains = [item.strip().lower().rstrip(".") for item in value]
    for item, domain in zip(value, domains, strict=True):
        if not domain or any(c in domain for c in "/: "):
            raise ValueError(f"{item!r} is not a domain name (write e.g. docs.python.org)")
    return domains


class WebSettings(StrictSettings):
    """The web: the client-side `web_fetch` tool and the API's server-side search."""

    fetch: bool = Field(default=True, description="Offer the web_fetch tool.")
    search: bool = Field(
        default=False, description="Declare the API's web_search server tool where offered."
    )
    allow_private_hosts: bool = Field(
        default=False, description="Let web_fetch reach loopback, private, link-local addresses."
    )
    allowed_domains: list[str] = Field(
        default_factory=list, max_length=1_000, description="Only these domains (and subdomains)."
    )
    blocked_domains: list[str] = Field(
        default_factory=list, max_length=1_000, description="Never these (and their subdomains)."
    )
    allow_credential_urls: bool = Field(
        default=False, description="Let web_fetch send URLs that look like they carry a credential."
    )
    search_max_uses: int = Field(
        default=5, ge=1, le=50, description="Web searches the model may make in one request."
    )
    max_bytes: int = Field(
        default=10_000_000, ge=1_000, le=200_000_000, description="Body bytes web_fetch reads."
    )
    timeout_s: float = Field(default=30, gt=0, le=300, description="Timeout of one fetch.")
    max_redirects: int = Field(default=5, ge=0, le=20, description="Redirects web_fetch follows.")
    cache_ttl_s: float = Field(
        default=900, ge=0, le=86_400, description="Seconds a fetched page is reused in a session."
    )
    pause_continuations: int = Field(
        default=5, ge=0, le=20, description="Times a paused server-tool turn is continued."
    )
    _domains = field_validator("allowed_domains", "blocked_domains")(_domain_names)


class CheckpointSettings(StrictSettings):
    enabled: bool = Field(
        default=True, description="Snapshot the workspace at the start of every turn."
    )
    max_file_bytes: int = Field(
        default=20_000_000,
        ge=1,
        le=10_000_000_000,
        description="Files larger than this are recorded as skipped, not stored.",
    )
    git_timeout_s: float = Field(
        default=300, gt=0, le=3600, description="Seconds one git call of the store may take."
    )


class JobsSettings(StrictSettings):
    """Background shells: `bash(run_in_background)`, `bash_output`, `bash_kill`."""

    max_jobs: int = Field(default=8, ge=1, le=64, description="Background jobs running at once.")
    background_after_s: float = Field(
        default=15,
        ge=0,
        le=600,
        description="A foreground command still running after this is moved to the background "
        "instead of killed (0: never).",
    )
    move_in_run: bool = Field(
        default=False, description="Also move long commands to the background in `agent run`."
    )
    wake_on_end: bool = Field(
        default=False, description="In `agent chat`, a job that ends starts a turn when idle."
    )
    notice_tail_lines: int = Field(
        default=5, ge=0, le=100, description="Last output lines in the job-ended notice."
    )


class NotifySettings(StrictSettings):
    """The ping when the agent needs the user: a long turn ended, an approval waits."""

    after_s: float = Field(
        default=30, ge=0, le=86_400, description="A turn at least this long pings when it ends."
    )
    bell: bool = Field(default=True, description="Ring the terminal bell (BEL).")
    osc: bool = Field(default=True, description="A desktop notification escape (OSC 9 / 777 / 99).")
    hook: bool = Field(default=True, description="Run the `notification` hooks.")


class MemorySettings(StrictSettings):
    episode_rounds: int = Field(
        default=40, ge=1, description="Tool rounds since the last episode that trigger one."
    )
    episode_tokens: int = Field(
        default=150_000, ge=1_000, description="Tokens since the last episode that trigger one."
    )
    recent_episodes: int = Field(
        default=5, ge=0, le=10, description="Newest episodes put in a new session's system prompt."
    )


class ServerSettings(StrictSettings):
    """The warm per-user process `agent run` goes through (user settings only: it serves every
    workspace; read by the standard-library client in cli/warm/place.py as well)."""

    enabled: bool = Field(
        default=True, description="Run `agent run` in a resident process (off when CI is set)."
    )
    idle_minutes: float = Field(
        default=15, gt=0, description="The resident process exits after this long without runs."
    )


DEFAULT_REVIEWER = "claude-haiku-4-5"


class AutoSettings(StrictSettings):
    """Auto mode (`permissions.mode: auto`): the reviewer that answers what `default` would
    have asked, and the project's rules it is given."""

    model: str = Field(
        default=DEFAULT_REVIEWER,
        min_length=1,
        description="The reviewer's model id; 'same' uses the session's model.",
    )
    rules: list[str] = Field(
        default_factory=list,
        description="Plain sentences the reviewer is given ('pushing to feature branches is "
        "fine', 'never touch infra/'); ignored in an untrusted workspace.",
    )
    timeout_s: float = Field(
        default=60, gt=0, le=600, description="A reviewer slower than this denies the call."
    )
    max_denials_in_a_row: int = Field(
        default=3, ge=1, le=100, description="Denials in a row that stop auto mode."
    )
    max_denials: int = Field(
        default=20, ge=1, le=1_000, description="Denials in a session that stop auto mode."
    )


class BudgetSettings(StrictSettings):
    """Spending limits: the run stops before the request that would pass `max_cost_usd`."""

    max_cost_usd: float | None = Field(
        default=None, gt=0, description="US dollars a session may spend (`--max-cost`)."
    )
    warn_usd_per_min: float | None = Field(
        default=None, gt=0, description="Chat warns once when a session spends faster than this."
    )
