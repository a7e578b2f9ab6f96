"""What the warm process does once, before it serves: import the SDK and every module an
`agent run` needs, send one streamed request through the SDK to an in-memory transport, so
the children find the SDK's lazily built parts (its types, its client) already made, and try
the sandbox's mechanism once."""

from __future__ import annotations

import asyncio
import importlib
import json

MODULES = (
    "agent_cli.cli.app",
    "agent_cli.cli.entry",
    "agent_cli.cli.warm.child",
    "agent_cli.cli.warm.sched",
    "agent_cli.cli.worktree_session",
    "agent_cli.cli.run_output",
    "agent_cli.cli.workspace_trust",
    "agent_cli.runtime.build",
    "agent_cli.model.anthropic",
    "agent_cli.model.call_log",
    "agent_cli.core.signals",
    "agent_cli.subagent.runner",
    "agent_cli.subagent.profile",  # a task's type (explore), made when a task runs
    "agent_cli.memory.episode",  # an episode written, after a turn
    "agent_cli.loop.agent",
    # what a run imports after its first request (its first reply, tool call, command): here
    # they are shared by every run instead of each child's own
    "agent_cli.loop.rounds",
    "agent_cli.core.text.lenient_json",
    "agent_cli.core.text.lenient_values",
    "agent_cli.core.text.money",
    "agent_cli.policy.call_rules",
    "agent_cli.policy.patterns",
    "agent_cli.policy.trust",
    "agent_cli.tools.shell.rules",
    "agent_cli.tools.shell.deny",
    "agent_cli.tools.shell.bash_jobs",
    "agent_cli.tools.shell.git_guard",
    "agent_cli.tools.host_rules",
    "agent_cli.core.outside.groups",
    "agent_cli.ext.sandbox.plugin",
    "httpcore2",
    "h11",
    "anyio._backends._asyncio",
    "anyio.streams.tls",
    "anyio.streams.stapled",
    "typer._adapters",
    "encodings.rot_13",  # the redaction's variants of a secret
)

_EVENTS = [
    ("message_start", {"type": "message_start", "message": {
        "id": "msg_warm", "type": "message", "role": "assistant", "model": "warm",
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 0}}}),
    ("content_block_start", {"type": "content_block_start", "index": 0,
                             "content_block": {"type": "text", "text": ""}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0,
                             "delta": {"type": "text_delta", "text": "ok"}}),
    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                       "stop_sequence": None}, "usage": {"output_tokens": 1}}),
    ("message_stop", {"type": "message_stop"}),
]  # fmt: skip


def _sse() -> bytes:
    return "".join(f"event: {n}\ndata: {json.dumps(d)}\n\n" for n, d in _EVENTS).encode()


async def _one_request() -> int:
    import anthropic
    import httpx2

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=_sse(), headers={"content-type": "text/event-stream"})

    http = anthropic.DefaultAsyncHttpxClient(transport=httpx2.MockTransport(answer))
    client = anthropic.AsyncAnthropic(
        api_key="warm-up", base_url="http://warm-up.invalid", http_client=http, max_retries=0
    )
    events = 0
    try:
        stream = await client.messages.create(
            model="warm", max_tokens=1, stream=True, messages=[{"role": "user", "content": "hi"}]
        )
        async for _event in stream:
            events += 1
    finally:
        await client.close()
    return events


async def _transport() -> None:
    """The real transport's modules (httpcore2, h11, anyio's sockets, truststore) load when a
    client is first made and used: made here, never connected."""
    import anthropic

    from agent_cli.model.anthropic import trust_store

    http = anthropic.DefaultAsyncHttpxClient(verify=trust_store())
    await http.aclose()


def _tool_schemas() -> int:
    """Every tool input model's JSON schema (the tools' modules are imported by now)."""
    from agent_cli.core.tool_contract import Tool
    from agent_cli.tools.registry import model_schema

    made, classes = 0, list(Tool.__subclasses__())
    while classes:
        tool = classes.pop()
        classes += tool.__subclasses__()
        model = getattr(tool, "input_model", None)
        if isinstance(model, type) and not tool.__name__.startswith("Mcp"):
            model_schema(model)
            made += 1
    return made


def _shell_wrapper() -> None:
    """The shell wrapper's port, as a run asks the registry for it, made ready: bwrap tried
    once here, not in every child (kept while what decides it holds), and what confines a
    command imported."""
    from pathlib import Path

    from agent_cli.core.files.paths import Paths
    from agent_cli.core.settings.schema import Settings
    from agent_cli.runtime.extensions.contract import ExtensionContext
    from agent_cli.runtime.extensions.discovery import Asking
    from agent_cli.runtime.extensions.registry import discover
    from agent_cli.tools.shell.confined import SHELL_WRAPPER, ShellWrapper

    here = Path.cwd()

    def context(name: str) -> ExtensionContext:
        return ExtensionContext(name, here, Paths(here), Settings(), "warm")

    wrapper = discover(path=(), asking=Asking(command="run")).port(SHELL_WRAPPER, context)
    if isinstance(wrapper, ShellWrapper):
        wrapper.prepare()


def _parse_run() -> None:
    """`agent run` parsed once without running: typer builds each option's coercion (a pydantic
    TypeAdapter) and the help options when they are first used, so each child would build them
    again and write ~2 MiB of the pages it shares with this process."""
    from typer.core import TyperGroup

    from agent_cli.cli.app import command

    group = command()
    if not isinstance(group, TyperGroup):
        return
    with group.make_context("agent", ["run"], resilient_parsing=True) as ctx:
        run = group.get_command(ctx, "run")
        if run is not None:
            run.make_context("run", [], parent=ctx, resilient_parsing=True).close()


def warm_up() -> int:
    """Import everything a run needs; one request through the SDK. How many events it saw."""
    for name in MODULES:
        importlib.import_module(name)
    from agent_cli.cli.app import command

    command()  # the click command tree, built once for every child
    _parse_run()
    _tool_schemas()
    _shell_wrapper()
    asyncio.run(_transport())
    events = asyncio.run(_one_request())
    from agent_cli.cli.warm.rehearsal import rehearse

    rehearse()
    return events
