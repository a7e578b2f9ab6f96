"""The daily commands' lines in /help and their handlers, merged into ui/slash/commands.py."""

from __future__ import annotations

from agent_cli.ui.slash.daily import aside, editing, session, workspace
from agent_cli.ui.slash.host import Command

HELP = {**session.HELP, **workspace.HELP, **aside.HELP, **editing.HELP}
COMMANDS: dict[str, Command] = {
    "/rename": session.rename,
    "/export": session.export,
    "/copy": session.copy,
    "/add-dir": workspace.add_dir,
    "/init": workspace.init,
    "/review": workspace.review,
    "/btw": aside.btw,
    "/vim": editing.vim,
}
# prompts for the model rather than the REPL's own work: a project command of the same name
# (.claude/commands/review.md is common) is run instead
YIELDING = frozenset({"/review", "/init"})
