"""What a sandboxed command holds while it runs, and what its result is told afterwards: its
network proxy (closed once the shell has ended: a job's, or a command moved to the background,
lives on), the protected paths as they stood before it, and the denial it may have hit."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from agent_cli.core.outside.groups import Shell, exit_code
from agent_cli.core.tool_contract import ToolContext, ToolResult
from agent_cli.ext.sandbox.confine import Confinement
from agent_cli.ext.sandbox.created import Watch
from agent_cli.ext.sandbox.handoff import Handoff
from agent_cli.ext.sandbox.protect import guarded
from agent_cli.ext.sandbox.wrap import denial_note, offline_note, socket_note
from agent_cli.tools.shell.net_access import network_notes, open_proxy
from agent_cli.tools.shell.net_proxy import NetworkProxy

POLL_S = 0.25
_closing: set[asyncio.Task[None]] = set()


@dataclass
class Confined:
    watch: Watch
    proxy: NetworkProxy | None = None
    handoff: Handoff = field(default_factory=Handoff)

    @classmethod
    async def open(
        cls, ctx: ToolContext, confinement: Confinement, command: str, networked: bool
    ) -> Confined:
        """The protected paths as they stand once the missing protected folders are made."""
        policy = confinement.policy()
        policy.prepare()
        found = guarded(policy)  # looked up once: for the watch, and for bwrap's binds
        proxy = await open_proxy(ctx, command) if networked else None
        return cls(Watch.before(policy, found), proxy, Handoff(found))

    @property
    def channel(self) -> int | None:
        return self.proxy.channel if self.proxy is not None else None

    @property
    def pass_fds(self) -> tuple[int, ...]:
        """What the command inherits: its end of the proxy's channel, what bwrap binds."""
        channel = (self.proxy.channel,) if self.proxy is not None else ()
        return (*channel, *self.handoff.fds)

    def started(self) -> None:
        """The command has its own copies of the descriptors handed to it."""
        self.handoff.close()

    def tell(self, result: ToolResult) -> ToolResult:
        """The result with what the sandbox did to the command, one line each."""
        notes = network_notes(self.proxy) + self.watch.settle()
        if result.is_error:
            notes.append(denial_note(result.content) or "")
            if not self.watch.policy.unix_sockets:
                notes.append(socket_note(result.content) or "")
            notes.append("" if self.proxy else offline_note(result.content) or "")
        for note in filter(None, notes):
            result.content += f"\n{note}"
        return result

    def when_ended(self, proc: Shell | None, settle: bool = False) -> None:
        """Once `proc` has ended (at once without one): the proxy closes; `settle`: a job's
        protected files are moved aside too."""
        task = asyncio.ensure_future(self._after(proc, settle))
        _closing.add(task)
        task.add_done_callback(_closing.discard)

    async def _after(self, proc: Shell | None, settle: bool) -> None:
        self.handoff.close()
        try:
            while proc is not None and exit_code(proc) is None:
                await asyncio.sleep(POLL_S)
        finally:
            if settle:
                self.watch.settle()
            if self.proxy is not None:
                self.proxy.stop_accepting()  # even when the run's loop ends first
                await self.proxy.aclose()
