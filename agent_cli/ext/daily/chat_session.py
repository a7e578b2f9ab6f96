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
    "/copy": "ask the terminal to copy the last reply (OSC 52)",
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
    """Says where the reply went: no terminal tells whether OSC 52 reached a clipboard, so
    never "copied"; where that is least likely (inside tmux, too long) it is also in a file."""
    reply = daily(host).last_reply()
    if not reply:
        host.say("No reply to copy yet.")
        return
    if host.terminal is None:
        host.say("No terminal to copy through: /export writes the conversation to a file.")
        return
    refused = host.terminal.copy(reply)
    if refused:
        path = daily(host).save_reply(reply)
        host.say(f"Not sent to the terminal: {refused}. The reply is in {path}", "yellow")
        return
    asked = (
        f"Asked the terminal to copy the last reply ({counted(len(reply), 'character')}, OSC 52)"
    )
    if not host.terminal.in_tmux:
        host.say(f"{asked}; a terminal without OSC 52 copies nothing.")
        return
    path = daily(host).save_reply(reply)
    host.say(
        f"{asked}; inside tmux its set-clipboard option decides whether it reaches the "
        f"clipboard. The reply is also in {path}"
    )
