"""LSP framing read strictly: a real server's frames parse, whatever else ends the connection
with a reason (never a hang, never a crash of the agent)."""

from __future__ import annotations

import asyncio

import pytest

from agent_cli.ext.lsp.rpc import MAX_FRAME, RpcClosed, frame, read_frame


def read(data: bytes) -> object:
    async def go() -> object:
        reader = asyncio.StreamReader()
        reader.feed_data(data)
        reader.feed_eof()
        return await read_frame(reader)

    return asyncio.run(go())


def test_a_frame_round_trips_with_extra_headers():
    body = frame({"jsonrpc": "2.0", "id": 1, "result": {"ok": "é"}})
    with_type = body.replace(b"\r\n\r\n", b"\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n")
    assert read(with_type) == {"jsonrpc": "2.0", "id": 1, "result": {"ok": "é"}}


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"hello, I am not a language server\n", "not an LSP header"),
        (b"Content-Length: twelve\r\n\r\n", "bad Content-Length"),
        (b"Content-Type: text\r\n\r\n{}", "without a usable Content-Length"),
        (b"Content-Length: %d\r\n\r\n" % (MAX_FRAME + 1), "without a usable Content-Length"),
        (b"Content-Length: 5\r\n\r\nnope!", "not JSON"),
        (b"Content-Length: 2\r\n\r\n[]", "not a JSON object"),
        (b"", "closed its output"),
    ],
)
def test_what_is_not_lsp_closes_the_connection_with_a_reason(data: bytes, reason: str):
    with pytest.raises(RpcClosed, match=reason):
        read(data)


def test_a_frame_cut_short_is_an_incomplete_read():
    with pytest.raises(asyncio.IncompleteReadError):
        read(b"Content-Length: 50\r\n\r\n{}")
