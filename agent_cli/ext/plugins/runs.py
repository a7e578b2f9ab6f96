"""What a plugin will run: the lines consent shows, and fingerprints.

Each hook command, each MCP server (its command line, or the URL it talks to), each language
server's command line, and each script its skills bundle (a file under a skill's folder with an
executable bit or a script suffix). `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` are
expanded (`expand=False` keeps them as written: the same plugin installed at another version
folder then gives the same lines). The order is fixed: events, servers and scripts sorted,
handlers in the order the plugin merges them, so a fingerprint changes only when they do.
"""

from __future__ import annotations

import os
import shlex
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from agent_cli.runtime.bundles import Bundle

SCRIPT_SUFFIXES = frozenset({".py", ".sh", ".js", ".ts", ".mjs", ".rb"})
MAX_SCRIPTS = 500  # per skill: a hostile tree cannot stall consent


def what_it_runs(bundle: Bundle, *, expand: bool = True) -> list[str]:
    def shown(text: str) -> str:
        return bundle.expand(text) if expand else text

    lines = [f"hook {where}: {line}" for where, line in _hook_commands(bundle, shown)]
    for name in sorted(bundle.mcp_servers):
        lines.append(f"mcp server {name}: {_server_line(bundle.mcp_servers[name], shown)}")
    for name in sorted(bundle.lsp_servers):
        lines.append(f"language server {name}: {_server_line(bundle.lsp_servers[name], shown)}")
    for script in skill_scripts(bundle):
        relative = script.relative_to(bundle.root).as_posix()
        lines.append(f"skill script: {shown('${CLAUDE_PLUGIN_ROOT}/' + relative)}")
    return lines


Shown = Callable[[str], str]


def _hook_commands(bundle: Bundle, shown: Shown) -> Iterator[tuple[str, str]]:
    for event in sorted(bundle.hooks):
        for group in bundle.hooks[event]:
            matcher = group.get("matcher") if isinstance(group, Mapping) else None
            where = f"{event} [{matcher}]" if isinstance(matcher, str) and matcher else event
            for handler in group.get("hooks", []) if isinstance(group, Mapping) else []:
                line = _handler_line(handler, shown)
                if line is not None:
                    yield where, line


def _handler_line(handler: Any, shown: Shown) -> str | None:
    """A command handler's command line (exec form: the command then its quoted args); an
    http handler's URL. Prompt and agent handlers start nothing."""
    if not isinstance(handler, Mapping):
        return None
    kind = handler.get("type", "command")
    if kind == "command" and isinstance(handler.get("command"), str):
        return _command_line(handler["command"], handler.get("args"), shown)
    if kind == "http" and isinstance(handler.get("url"), str):
        return f"http {shown(handler['url'])}"
    return None


def _server_line(config: Mapping[str, Any], shown: Shown) -> str:
    command = config.get("command")
    if isinstance(command, str) and command.strip():
        return _command_line(command, config.get("args"), shown)
    kind = config.get("type") if isinstance(config.get("type"), str) else "http"
    return f"{kind} {shown(str(config.get('url', '')))}"


def _command_line(command: str, args: Any, shown: Shown) -> str:
    """The command as written (a shell line), then each exec-form argument quoted."""
    if not isinstance(args, list) or not args:
        return shown(command.strip())
    return " ".join([shown(command.strip()), *(shlex.quote(shown(str(a))) for a in args)])


def skill_scripts(bundle: Bundle) -> list[Path]:
    """Files under each skill folder that are executable or end in a script suffix, sorted;
    symlinked folders are not entered and links leading out of the plugin are left out."""
    root = bundle.root.resolve()
    found: set[Path] = set()
    for skill in bundle.skills:
        count = 0
        for top, dirs, names in os.walk(skill):
            dirs.sort()
            for name in sorted(names):
                path = Path(top) / name
                if count < MAX_SCRIPTS and _is_script(path, root):
                    found.add(path)
                    count += 1
    return sorted(found)


def _is_script(path: Path, root: Path) -> bool:
    if not path.resolve().is_relative_to(root):
        return False
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    if not stat.S_ISREG(mode):
        return False
    return path.suffix.lower() in SCRIPT_SUFFIXES or bool(mode & 0o111)
