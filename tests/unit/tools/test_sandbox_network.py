"""The sandbox's network: the host rules, and bash behind real bubblewrap asking the user (chat's
port, ctx.ask) for an unlisted host: allow once, for this project, deny."""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_cli.core.asking import Answer, Question
from agent_cli.core.settings.features import WebSettings
from agent_cli.core.settings.hosts import parse_host_entry
from agent_cli.core.settings.schema import Settings
from agent_cli.ext.jobs.board import JobBoard
from agent_cli.runtime.assembly import base_tools
from agent_cli.tools.registry import ToolRegistry
from agent_cli.tools.shell.net_proxy import NetworkProxy
from agent_cli.tools.shell.net_rules import HostRules
from tests.e2e.jobs_support import board_tools
from tests.unit.tool_helpers import call, make_ctx
from tests.waiting import until

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None or shutil.which("curl") is None, reason="no bwrap or curl"
)


async def _resolve(host: str, port: int) -> list[str]:
    return {"intranet.example": ["10.1.2.3"], "pypi.org": ["151.101.0.223"]}.get(host, ["1.1.1.1"])


def _check(allowed: list[str], host: str, port: int, **web: list[str]) -> tuple[str, str]:
    rules = HostRules.of(allowed, WebSettings(**web), _resolve)
    verdict = asyncio.run(rules.check(host, port))
    return verdict.kind, verdict.reason


def test_entries_name_a_host_a_port_or_a_suffix() -> None:
    assert _check(["pypi.org"], "pypi.org", 8443)[0] == "allow"
    assert _check(["pypi.org:443"], "pypi.org", 80)[0] == "ask"
    assert _check(["*.github.com"], "api.github.com", 443)[0] == "allow"
    assert _check(["*.github.com"], "github.com", 443)[0] == "ask"
    assert _check(["*.github.com"], "evilgithub.com", 443)[0] == "ask"
    assert _check(["[::1]:80"], "::1", 80)[0] == "allow"


def test_blocked_domains_win_and_private_addresses_need_listing_by_address() -> None:
    kind, reason = _check(["pypi.org"], "pypi.org", 443, blocked_domains=["pypi.org"])
    assert (kind, reason) == ("refuse", "pypi.org:443 is blocked by web.blocked_domains (pypi.org)")
    kind, reason = _check(["intranet.example"], "intranet.example", 80)
    assert kind == "refuse"
    assert 'lists them by address (add "10.1.2.3:80")' in reason
    assert _check(["intranet.example", "10.1.2.3"], "intranet.example", 80)[0] == "allow"
    assert _check([], "127.0.0.1", 80) == (
        "ask",
        '127.0.0.1:80 is not in sandbox.network.allowed_domains; add "127.0.0.1:80" there to '
        "allow it",
    )


@pytest.mark.parametrize("bad", ["pypi.org:0", "a b", "::1", "http://x", "*."])
def test_bad_entries_are_refused_naming_them(bad: str) -> None:
    with pytest.raises(ValueError, match="'"):
        parse_host_entry(bad)
    with pytest.raises(ValueError, match="allowed_domains"):
        Settings.model_validate({"sandbox": {"network": {"allowed_domains": [bad]}}})


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "6")
        self.end_headers()
        self.wfile.write(b"hello\n")

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def port() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


class _User:
    """ctx.ask as chat's: answers each question with `label`, and counts them."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.asked: list[Question] = []

    async def __call__(self, questions: list[Question]) -> list[Answer] | None:
        self.asked += questions
        return [Answer(question=q.question, chosen=[self.label]) for q in questions]


@needs_bwrap
@pytest.mark.parametrize("label", ["Allow once", "Allow for this project", "Deny"])
def test_chat_asks_once_per_host_and_the_answer_holds(
    tmp_path: Path, port: int, label: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    ws = tmp_path / "ws"
    ws.mkdir()
    ctx = make_ctx(ws)
    ctx.ask = user = _User(label)
    url = f"http://127.0.0.1:{port}/"
    command = f"curl -sS {url}; curl -sS {url}"
    result = call(ToolRegistry(base_tools()), ctx, "bash", command=command)
    assert len(user.asked) == 1  # the second request had its answer
    assert f"127.0.0.1:{port}" in user.asked[0].question
    assert command in user.asked[0].question
    assert [o.label for o in user.asked[0].options] == [
        "Allow once",
        "Allow for this project",
        "Deny",
    ]
    stored = tmp_path / "config" / "agent" / "approved-hosts.json"
    if label == "Deny":
        assert "hello" not in result.content
        assert f"127.0.0.1:{port} was refused by the user" in result.content
        assert not stored.exists()
        return
    assert result.content.startswith("hello\nhello\n"), result.content
    again = call(ToolRegistry(base_tools()), ctx, "bash", command=f"curl -sS {url}")
    if label == "Allow once":
        assert len(user.asked) == 2
        assert not stored.exists()
    else:
        assert len(user.asked) == 1
        assert again.content.startswith("hello")
        workspaces = json.loads(stored.read_text())["workspaces"]
        assert workspaces == {str(ws.resolve()): [f"127.0.0.1:{port}"]}


@needs_bwrap
def test_a_background_job_keeps_its_proxy_until_it_ends(tmp_path: Path, port: int) -> None:
    settings = Settings.model_validate(
        {"sandbox": {"network": {"allowed_domains": [f"127.0.0.1:{port}"]}}}
    )
    ctx = make_ctx(tmp_path, settings)
    board = JobBoard(ctx.paths, settings.jobs)
    registry = ToolRegistry(board_tools(board))

    async def go() -> str:
        try:
            command = f"sleep 1; curl -sS http://127.0.0.1:{port}/; sleep 30"
            await registry.dispatch("bash", {"command": command, "run_in_background": True}, ctx)
            (job,) = board.running()
            await until(lambda: "hello" in job.output.read_text(), what="the fetched page")
            return job.output.read_text()
        finally:
            await board.aclose()

    assert asyncio.run(go()).startswith("hello")


async def _raw(proxy: NetworkProxy, data: bytes) -> bytes:
    """`data` sent on a connection handed to the proxy as the forwarder does: its descriptor,
    over the channel the sandboxed command inherits."""
    listener = socket.create_server(("127.0.0.1", 0))
    reader, writer = await asyncio.open_connection(*listener.getsockname())
    accepted, _ = listener.accept()
    listener.close()
    with socket.socket(fileno=os.dup(proxy.channel)) as channel:
        socket.send_fds(channel, [b"c"], [accepted.fileno()])
    accepted.close()
    writer.write(data)
    await writer.drain()
    reply = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return reply


def test_hostile_requests_get_an_answer_and_the_proxy_goes_on(port: int) -> None:
    sent = [
        b"GARBAGE\r\n\r\n",
        b"GET https://127.0.0.1/ HTTP/1.1\r\n\r\n",
        b"CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n",
        b"GET http://[zz/ HTTP/1.1\r\n\r\n",
        b"GET http://127.0.0.1:1/ HTTP/1.1\r\n\xff\xfe: x\r\n\r\n",
        b"GET / HTTP/1.1\r\nX: " + b"a" * 100_000 + b"\r\n\r\n",
        f"GET http://127.0.0.1:{port}/ HTTP/1.1\r\n".encode() + b"\xff: y\r\n\r\n",
    ]

    async def go() -> tuple[list[bytes], int]:
        proxy = NetworkProxy(HostRules.of([f"127.0.0.1:{port}"], WebSettings()))
        await proxy.start()
        try:
            return [await _raw(proxy, data) for data in sent], proxy.channel
        finally:
            await proxy.aclose()
            assert proxy.channel == -1  # closed: no connection can be handed to it any more

    replies, channel = asyncio.run(go())
    *bad, unlisted, oversized, fine = replies
    assert all(reply.startswith(b"HTTP/1.1 400 ") for reply in bad), bad
    assert unlisted.startswith(b"HTTP/1.1 403 ")  # port 1 is not listed
    assert oversized == b""  # over the head's limit: closed
    assert fine.startswith(b"HTTP/1.0 200")
    assert fine.endswith(b"hello\n")
    assert channel >= 0
