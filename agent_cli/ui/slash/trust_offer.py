"""The one question `agent chat` asks in a workspace whose files want what only trust allows
(its MCP servers' command lines, hooks, allow rules): everything is shown, then y/n. The answer
is the same as running `agent trust` (or not); the MCP servers start after it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.policy.trust import TrustStore, grant_items
from agent_cli.runtime.trust_items import widening_items
from agent_cli.ui.slash.host import ChatPart

if TYPE_CHECKING:
    from agent_cli.ui.screen.live import ChatScreen
    from agent_cli.ui.slash.host import Host

ANSWERS = {"y": "allow", "n": "deny"}


async def offer_trust(screen: ChatScreen, repl: Host, store: TrustStore | None = None) -> None:
    runtime = repl.runtime
    workspace = runtime.options.workspace
    store = store or TrustStore()
    items = widening_items(workspace)
    if any(not store.covers(workspace, i.key, i.fingerprint) for i in items):
        shown = "\n".join(f"  {i.description}  ({Path(i.source).name})" for i in items)
        repl.say(f"This workspace's files ask for what only a trusted workspace gets:\n{shown}")
        answer = await screen.ask("Trust this workspace?  [y]es  [n]o", dict(ANSWERS))
        if answer == "allow":
            store.trust(workspace, grant_items(items))
            repl.say(f"Trusted {workspace} (undo: agent trust --revoke).", "dim")
        else:
            repl.say("Not trusted: its MCP servers stay off (trust later: agent trust).", "dim")
    runtime.start_servers()
    part = runtime.port("chat_part")
    if isinstance(part, ChatPart):  # the status line's count follows the servers
        part.watch(screen.invalidate)
