"""An editor, as far as the tests need one: the ACP SDK's own client side, driving a real
`agent acp` subprocess. It records every session update and permission request in arrival
order and answers permissions as told."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from acp import PROTOCOL_VERSION, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.interfaces import Client
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from tests.e2e.helpers import REPO


@dataclass
class Editor:
    answer: str = "allow_once"  # the option_id to pick, or "cancelled"
    seen: list[tuple[str, Any]] = field(default_factory=list)  # ("update"|"permission", obj)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate, **kw: Any
    ) -> RequestPermissionResponse:
        self.seen.append(("permission", (tool_call, options)))
        self.arrived.set()
        if self.answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.answer)
        )

    async def session_update(self, session_id: str, update: Any, **kw: Any) -> None:
        self.seen.append(("update", update))
        self.arrived.set()

    def updates(self, kind: str | None = None) -> list[Any]:
        items = [u for what, u in self.seen if what == "update"]
        return [u for u in items if kind is None or u.session_update == kind]

    async def wait_for(self, predicate: Any, timeout: float = 20) -> None:
        async def until() -> None:
            while not any(predicate(what, item) for what, item in self.seen):
                self.arrived.clear()
                await self.arrived.wait()

        await asyncio.wait_for(until(), timeout)


@asynccontextmanager
async def agent_acp(
    env: dict[str, str], cwd: Path, editor: Editor
) -> AsyncIterator[ClientSideConnection]:
    env = {**env, "PYTHONPATH": str(REPO)}
    spawned = spawn_agent_process(
        cast(Client, editor), sys.executable, "-m", "agent_cli", "acp", env=env, cwd=cwd
    )
    async with spawned as (conn, _process):
        await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities()
        )
        yield conn
