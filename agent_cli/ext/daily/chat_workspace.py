"""/add-dir, /init and /review: another directory for the tools, and two requests framed for the
model (it does the looking with its tools; what it writes goes through the permission gate)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_cli.ext.daily.reach import daily
from agent_cli.ui.slash.cache_note import STYLE, rewrite_note

if TYPE_CHECKING:
    from agent_cli.ui.slash.host import Host

HELP = {
    "/add-dir [PATH]": "read and write another directory as the workspace (none: list them)",
    "/init": "write AGENTS.md from a look at the repository (the write is asked)",
    "/review [focus]": "review the working tree's changes, findings ranked",
}


def add_dir(host: Host, arg: str) -> None:
    runtime = daily(host)
    if not arg:
        added = runtime.added_dirs
        listed = "\n".join(f"  {p}" for p in added)
        host.say(f"Added directories:\n{listed}" if added else "No directories added.")
        return
    path = runtime.add_dir(arg)
    host.say(
        f"Added {path}: its files are read and written as the workspace's, under the same "
        "permission rules and sandbox."
    )
    host.say(rewrite_note("adding a directory"), STYLE)


def init(host: Host, arg: str) -> None:
    host.send(daily(host).init_request())


def review(host: Host, arg: str) -> None:
    request = daily(host).review_request(arg)
    if request is None:
        host.say("Nothing to review: the working tree has no changes against HEAD.")
        return
    host.send(request)
