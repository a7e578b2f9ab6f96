"""The agent's own features, declared as a package's entry points are (nothing of them is
imported here): each with what asks for it before it is loaded (a settings key, the command,
the workspace, a port the spine asks for) and the CLI commands it brings."""

from __future__ import annotations

from agent_cli.policy.approval import REVIEWER
from agent_cli.runtime.extensions import asked
from agent_cli.runtime.extensions.discovery import BUILTIN, Asking, Declared

# ext/lsp/builtins.py's commands (a test holds it)
LSP_PROGRAMS = (
    *("ruff", "pylsp", "pyright-langserver", "typescript-language-server"),
    *("gopls", "rust-analyzer", "clangd"),
)


def lsp_asked(asking: Asking) -> bool:
    """A built-in language server is on PATH, or plugins may bring one (the settings' `lsp`
    key asks by its name)."""
    import os

    from agent_cli.core.outside.paths import program

    if asked.plugins(asking):
        return True
    if os.environ.get("AGENT_LSP_BUILTIN") == "0":
        return False
    return any(program(name, asking.workspace) for name in LSP_PROGRAMS)


def mcp_asked(asking: Asking) -> bool:
    """Servers configured: the workspace's `.mcp.json`, the user's `mcp.json`; or plugins may
    bring some (a settings layer's `mcp_servers` or `mcp` asks by its line's keys)."""
    from agent_cli.core.settings.schema import user_config_dir

    found = asking.file(".mcp.json") or asked.plugins(asking)
    return found or (user_config_dir() / "mcp.json").is_file()


def _in_chat(asking: Asking) -> bool:
    return asking.command == "chat"


def _takes_turns(asking: Asking) -> bool:
    return asking.command in ("run", "chat")


BUILTINS: tuple[Declared, ...] = (
    # asked for by its port (a session in auto mode makes its reviewer, runtime/assembly.py),
    # and in chat for its commands (/auto-rules, /permissions): its __init__ alone, cheap
    Declared(
        "auto", "agent_cli.ext.auto:EXTENSION", BUILTIN, lambda a: a.command == "chat", (REVIEWER,)
    ),
    Declared(  # asked by `agent run --bg` (cli/commands/background.py) and its commands
        "background",
        "agent_cli.ext.background:EXTENSION",
        BUILTIN,
        asked=lambda _: False,
        ports=("background",),
        commands=(
            ("ps", "Background sessions of this user: running, waiting, ended."),
            ("logs", "What a background session did, as text (-f: as it goes)."),
            ("attach", "A terminal on a running background session: watch, answer, steer."),
            ("stop", "End a background session cleanly (it stays resumable)."),
            ("rm", "Forget an ended background session."),
            ("send", "Send a message to a background session (its next prompt when it is idle)."),
        ),
    ),
    Declared(
        "batch",
        "agent_cli.ext.batch:EXTENSION",
        BUILTIN,
        asked=lambda _: False,
        commands=(("batch", "Run many tasks (TASKS.jsonl), each isolated; local or on Ray."),),
    ),
    Declared(
        "checkpoints",
        "agent_cli.ext.checkpoints:EXTENSION",
        BUILTIN,
        asked=_takes_turns,
        commands=(
            ("checkpoints", "List and diff workspace checkpoints."),
            ("rewind", "Take code and/or conversation back to a checkpoint."),
        ),
    ),
    # in chat for /cost and the bar's spend; `agent run` wakes it for its result (the service)
    Declared("cost", "agent_cli.ext.cost:EXTENSION", BUILTIN, _in_chat, ("session_cost",)),
    Declared(
        "daily",
        "agent_cli.ext.daily:EXTENSION",
        BUILTIN,
        lambda a: a.command == "chat",
        ports=("status_line",),
        keys=("status_line",),
    ),
    Declared(  # claims: every turn
        "goals", "agent_cli.ext.goals:EXTENSION", BUILTIN, _takes_turns, keys=("goal", "verify")
    ),
    Declared("jobs", "agent_cli.ext.jobs:EXTENSION", BUILTIN, _takes_turns, ports=("jobs",)),
    Declared(
        "lsp",
        "agent_cli.ext.lsp:EXTENSION",
        BUILTIN,
        lsp_asked,
        commands=(("lsp", "The language servers that check edits: status."),),
    ),
    Declared(
        "mcp",
        "agent_cli.ext.mcp:EXTENSION",
        BUILTIN,
        mcp_asked,
        commands=(("mcp", "Add, remove, list and inspect MCP servers."),),
        keys=("mcp_servers",),
        trusts=(".mcp.json", ".agent/settings.json"),  # ext/mcp/servers.py's files
    ),
    Declared(
        "plugins",
        "agent_cli.ext.plugins:EXTENSION",
        BUILTIN,
        asked.plugins,
        ports=("plugin_bundles",),  # runtime/bundles.py's PORT
        commands=(("plugin", "Install, enable and update plugins and their marketplaces."),),
    ),
    Declared(
        "project_files",
        "agent_cli.ext.project_files:EXTENSION",
        BUILTIN,
        asked=asked.project_files,  # not its port: a workspace without such files needs none
        commands=(
            ("agents", "List the subagent types task can run."),
            ("commands", "List the slash commands of this workspace."),
            ("skills", "List skills; `why PROMPT` shows which match."),
            ("trust", "Trust this workspace's hooks, allow rules, MCP servers and commands."),
        ),
    ),
    Declared(
        "providers",
        "agent_cli.ext.providers:EXTENSION",
        BUILTIN,
        asked=lambda asking: "provider" in asking.settings,  # or AGENT_PROVIDER
        ports=("model_client",),
        commands=(("models", "The endpoint's models, the one in use marked."),),
    ),
    Declared(
        "sandbox", "agent_cli.ext.sandbox:EXTENSION", BUILTIN, _takes_turns, ("shell_wrapper",)
    ),
    Declared("web", "agent_cli.ext.web:EXTENSION", BUILTIN, _takes_turns),
    Declared(
        "worktrees",
        "agent_cli.ext.worktrees:EXTENSION",
        BUILTIN,
        asked=lambda _: False,
        ports=("isolation", "worktree_session"),
        commands=(("worktrees", "Agent worktrees: list, diff, merge, remove."),),
    ),
)
"""This repository's features that plug in through the contract, declared as a package's entry
points are: `Declared(name, "module:attribute", BUILTIN)`, in the order of their names."""
