"""`agent acp`'s process: the ACP connection over stdio until the editor closes it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import cast

from acp.agent.connection import AgentSideConnection
from acp.interfaces import Agent, Client

from agent_cli.core.signals import end_like_ctrl_c
from agent_cli.serve.acp_agent import AcpAgent
from agent_cli.serve.defaults import Defaults
from agent_cli.serve.stdio import claim_stdout, streams

log = logging.getLogger(__name__)


async def serve(defaults: Defaults) -> None:
    out = claim_stdout()
    reader, writer = await streams(out)
    agents: list[AcpAgent] = []

    def make(conn: Client) -> Agent:
        agents.append(AcpAgent(conn, defaults))
        return cast(Agent, agents[-1])  # the methods it lacks are answered "method not found"

    end_like_ctrl_c()  # SIGTERM / SIGHUP: the sessions end as on a closed stdin
    conn = AgentSideConnection(make, writer, reader, listening=False)
    try:
        await conn.listen()
    except asyncio.CancelledError:
        log.info("acp: ended by a signal")
    finally:
        for agent in agents:
            await agent.aclose()
        await conn.close()


def run_acp(defaults: Defaults) -> None:
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C in a terminal: a quiet end
        asyncio.run(serve(defaults))
