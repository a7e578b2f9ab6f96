"""/vim: vi editing of the input on or off (the `vim_mode` setting chooses at start)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_cli.core.errors import UsageError

if TYPE_CHECKING:
    from agent_cli.ui.slash.host import Host

HELP = {"/vim [on|off]": "vi keys in the input box (Esc: normal mode; Ctrl-C stops a turn)"}


def vim(host: Host, arg: str) -> None:
    terminal = host.terminal
    if terminal is None:
        host.say("No input box here: vi keys need a terminal.")
        return
    word = arg.lower()
    if word not in ("", "on", "off"):
        raise UsageError(f"/vim {arg}: say on or off.")
    terminal.set_vim(word == "on" if word else not terminal.vim)
    host.say("Vim mode on (Esc: normal mode)." if terminal.vim else "Vim mode off.")
