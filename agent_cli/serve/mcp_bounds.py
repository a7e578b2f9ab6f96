"""What a client of `agent mcp serve` may choose for a session, within what the server's user
chose when starting it.

Modes are ordered by what runs unasked: plan (read-only tools) < default (also sandboxed
commands) < accept-edits (also file edits) < bypass (everything, unsandboxed commands too). A
client may ask for the server's mode or a narrower one; a wider one is refused with a tool
error, not quietly narrowed, so the client never believes it got what it did not.

A session's folder is the server's workspace or a real folder inside it: the path is normalised
as written and no part below the workspace may be a symbolic link, so a link the workspace holds
(pointing anywhere) never takes a session outside.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_cli.core.options import PermissionMode
from agent_cli.core.outside.paths import PlantedLink, no_links
from agent_cli.core.settings.narrowing import MODE_RANK


class Refused(ValueError):
    """A client's choice the server does not allow; its text is the tool error."""


def wider(mode: str, than: str) -> bool:
    return MODE_RANK[mode] > MODE_RANK[than]


def client_mode(asked: PermissionMode | None, server: PermissionMode) -> PermissionMode | None:
    """`asked` when it is the server's mode or narrower; Refused when it is wider."""
    if asked is None or not wider(asked, server):
        return asked
    raise Refused(
        f"permission_mode {asked!r} is wider than this server's mode {server!r}: a client may "
        f"keep or narrow it (plan < default < accept-edits < auto < bypass), never widen it. Ask "
        f"for {server!r} or narrower, or have the user start `agent mcp serve --permission-mode "
        f"{asked}`"
    )


def session_folder(workspace: Path, cwd: str | None) -> Path:
    """The folder a session opens in: `workspace` (resolved) or a real folder inside it."""
    if cwd is None:
        return workspace
    given = Path(cwd).expanduser()
    path = Path(os.path.normpath(given if given.is_absolute() else workspace / given))
    if not path.is_relative_to(workspace):
        if path.resolve() == workspace:  # the workspace itself, named another way
            return workspace
        raise Refused(
            f"cwd {cwd}: outside this server's workspace {workspace}; a session opens there "
            "or in a folder inside it"
        )
    try:
        no_links(path, workspace)
    except PlantedLink as e:
        raise Refused(f"cwd {cwd}: {e}; name the real folder inside {workspace}") from None
    if not path.is_dir():
        raise Refused(f"cwd {cwd}: not a directory")
    return path
