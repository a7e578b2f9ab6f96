"""/rename, /export and /copy: the session's title, the conversation to a file, the last reply
to the clipboard."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_cli.core.errors import UsageError
from agent_cli.core.text.counts import counted
from agent_cli.ext.daily.reach import daily

if TYPE_CHECKING:
    from agent_cli.session.export import ExportFormat
    from agent_cli.ui.slash.host import Host

HELP = {
    "/rename [TITLE]": "give this session a title (shown in /sessions and agent sessions)",
    "/export [FILE] [--json]": "the conversation as Markdown or JSON (FILE, else beside "
    "the session's transcript)",
    "/copy": "copy the last reply to the clipboard (through the terminal, OSC 52)",
}
FORMATS: dict[str, ExportFormat] = {"--json": "json", "json": "json", "--md": "markdown"}


def rename(host: Host, arg: str) -> None:
    if not arg:
        title = host.runtime.session.title
        host.say(f"Title: {title}" if title else "No title yet: /rename TITLE gives one.")
        return
    title = daily(host).rename(arg)
    host.say(f"Session {host.runtime.session.id} is now titled “{title}”.")


def export(host: Host, arg: str) -> None:
    words = arg.split()
    kinds = [FORMATS[w.lower()] for w in words if w.lower() in FORMATS]
    names = [w for w in words if w.lower() not in FORMATS]
    if len(names) > 1 or len(set(kinds)) > 1:
        raise UsageError("/export [FILE] [--json]: one file name, one format.")
    path, count = daily(host).export(names[0] if names else "", kinds[0] if kinds else None)
    host.say(f"Exported {counted(count, 'message')} to {path}")


def copy(host: Host, arg: str) -> None:
    reply = daily(host).last_reply()
    if not reply:
        host.say("No reply to copy yet.")
        return
    if host.terminal is None:
        host.say("No terminal to copy through: /export writes the conversation to a file.")
        return
    refused = host.terminal.copy(reply)
    if refused:
        host.say(f"Not copied: {refused}; /export writes it to a file.", "yellow")
        return
    host.say(f"Copied the last reply ({len(reply):,} characters) to the clipboard.")
