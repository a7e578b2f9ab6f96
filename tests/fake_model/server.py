"""FakeAnthropic: a real HTTP server on 127.0.0.1 speaking the Messages API for tests.

    with FakeAnthropic() as server:
        server.script.tool_use("read_file", path="a.py").text("done")
        client = AsyncAnthropic(base_url=server.base_url, api_key="sk-test-...")
        ...
        assert server.bodies()[1]["messages"][-1]["content"][0]["type"] == "tool_result"

Every request is recorded (``server.requests``) and checked with ``validate_request`` (SPEC §16);
violations go to ``server.violations`` (the ``fake_model`` fixture fails the test on any) and are
answered with a 400 naming them. A request whose body was cut short (its sender died while
sending it) is recorded with ``complete=False`` and neither checked nor answered. Each connection
has its own thread, so concurrent callers are served concurrently; ``server.route(predicate,
script)`` gives callers their own scripts.

What a client sees when a reply is dropped mid-stream (``drop_after=N``), with anthropic 2.14
to 2.17 (whose HTTP layer is ``httpx2``):
- while iterating a stream (``client.messages.stream(...)`` / ``create(stream=True)``): from 2.17
  an ``anthropic.APIConnectionError`` whose ``__cause__`` is ``httpx2.RemoteProtocolError`` ("peer
  closed connection without sending complete message body: incomplete chunked read"); before
  2.17 that httpx2 error itself, unwrapped. Either way the SDK does not retry it: the stream began
  with a 200, which ended the SDK's retry loop. Catch both ``anthropic.APIConnectionError`` and
  ``httpx2.TransportError`` (base of RemoteProtocolError).
- for a non-streaming request the body is cut before the SDK returns, inside its retry loop: it
  retries (each retry consumes the next step) and, when retries run out, raises
  ``anthropic.APIConnectionError`` with the httpx2 error as ``__cause__``.

Errors carry ``retry-after-ms`` (10 ms unless the step gives ``retry_after``) and ``retry-after``;
the SDK (``_base_client._parse_retry_after_header``) honours retry-after-ms first, then
retry-after as (float) seconds, and any positive value replaces its exponential backoff (0.5 s,
1 s, ... with jitter). ``x-should-retry: true|false`` overrides its status-code policy; the server
sends ``false`` on its own failures (script exhausted, validation) so they are not retried.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import socket
import socketserver
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from agent_cli.core.messages import validate_request

from .endpoint import ANTHROPIC, THINKING_REFUSED, Endpoint
from .script import Body, ErrorReply, Reply, Script
from .thinking import Signatures
from .usage import PromptCache, estimate_tokens
from .wire import (
    error_object,
    message_object,
    model_info,
    server_tool_usage,
    sse,
    stream_events,
)

MESSAGES_PATH = "/v1/messages"
COUNT_TOKENS_PATH = "/v1/messages/count_tokens"
MODELS_PATH = "/v1/models/"
DEFAULT_MODEL = "claude-fake"
Predicate = Callable[[Body], bool]
TOOL_ID = re.compile(r"^[a-zA-Z0-9_-]+$")  # the API refuses any other tool_use id


@dataclass(frozen=True)
class RecordedRequest:
    index: int
    path: str  # without the query string
    headers: dict[str, str]  # lower-cased names
    body: Body  # {} when the body was not a JSON object
    time: float  # time.monotonic() on arrival
    # False: the connection ended before the body its Content-Length announced (the sender
    # died mid-request, e.g. kill -9): recorded, never answered, not a violation (the API
    # never sees such a request either)
    complete: bool = True


@dataclass(frozen=True)
class Violation:
    request_index: int
    message: str

    def __str__(self) -> str:
        return f"request #{self.request_index}: {self.message}"


@dataclass
class Answer:
    """What the handler writes: a JSON body, or SSE events when ``events`` is not None."""

    status: int
    body: dict[str, Any] | None = None
    events: list[dict[str, Any]] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop_after: int | None = None
    pace: float = 0.0
    stall_after: int | None = None  # SSE events sent before waiting `delay` (instead of before)


class FakeAnthropic:
    """The fake Messages API server. Use as a context manager, or start()/stop()."""

    def __init__(self, script: Script | None = None, port: int = 0) -> None:
        self.port = port  # 0: any free one; a given one serves a test inside a network namespace
        self.script = script if script is not None else Script()
        self.requests: list[RecordedRequest] = []
        self.violations: list[Violation] = []
        self.replies: list[dict[str, Any]] = []  # every message object answered, in order
        self.served_usage: list[dict[str, int]] = []  # the usage of every reply sent, in order
        self._routes: list[tuple[Predicate, Script]] = []
        self._lock = threading.Lock()
        self.cache = PromptCache()  # its clock and TTL: a test may set them
        self._tool_ids = itertools.count(1)
        self.signatures = Signatures()  # thinking signed in replies, checked when sent back
        # what GET /v1/models/{id} says about web search: None = no models API (404)
        self.web_search_supported: bool | None = None
        self.models_error: int | None = None  # answer GET /v1/models/{id} with this status
        self.endpoint: Endpoint = ANTHROPIC  # what it lacks or refuses (endpoint.OLLAMA_LIKE)
        self._message_ids = itertools.count(1)
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> FakeAnthropic:
        self._httpd = _HTTPServer(self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, thread = self._httpd, self._thread
        if httpd is None or thread is None:
            return
        httpd.shutdown()
        thread.join()
        httpd.close_connections()
        httpd.server_close()
        self._httpd = self._thread = None

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    # -- configuration and inspection ---------------------------------------------------------

    def route(self, predicate: Predicate, script: Script | None = None) -> Script:
        """Serve requests for which ``predicate(body)`` holds from ``script`` (first match wins);
        returns that script (a new one if none was given)."""
        script = script if script is not None else Script()
        with self._lock:
            self._routes.append((predicate, script))
        return script

    def thinking_bodies(self) -> list[Body]:
        """Bodies of the message requests that turned extended thinking on."""
        return [b for b in self.bodies() if (b.get("thinking") or {}).get("type") == "enabled"]

    def bodies(self, path: str | None = MESSAGES_PATH) -> list[Body]:
        """Bodies of the recorded requests to ``path`` (all paths with None), in arrival order."""
        with self._lock:
            return [r.body for r in self.requests if path is None or r.path == path]

    # -- answering ----------------------------------------------------------------------------

    def answer(self, raw_path: str, headers: dict[str, str], raw: bytes) -> Answer:
        """Record a request and decide its answer (called from handler threads)."""
        path = urlsplit(raw_path).path
        if len(raw) < int(headers.get("content-length") or 0):
            self.cut_short(path, headers)
            return Answer(0)
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        body: Body = parsed if isinstance(parsed, dict) else {}
        with self._lock:
            index = len(self.requests)
            self.requests.append(RecordedRequest(index, path, headers, body, time.monotonic()))
        request_id = f"req_fake_{index:04d}"

        if path.startswith(MODELS_PATH):
            return self._model_info(index, path.removeprefix(MODELS_PATH), request_id)
        if path not in (MESSAGES_PATH, COUNT_TOKENS_PATH):
            return self._fail(index, 404, "not_found_error", f"unexpected path {path}", request_id)
        if not isinstance(parsed, dict):
            return self._fail(
                index, 400, "invalid_request_error", "body is not a JSON object", request_id
            )
        if (refused := self._refused(path, body, index, request_id)) is not None:
            return refused
        problems = validate_request(body) + self.signatures.check(body) + _bad_tool_ids(body)
        if problems:
            return self._fail(
                index,
                400,
                "invalid_request_error",
                "; ".join(problems),
                request_id,
                record=problems,
            )
        if path == COUNT_TOKENS_PATH:
            return Answer(200, {"input_tokens": estimate_tokens(body)}, headers=_ids(request_id))

        try:
            script = self._script_for(body)
        except Exception as e:  # a route predicate failed: the test is wrong
            return self._fail(index, 500, "api_error", f"route predicate raised {e!r}", request_id)
        try:
            step = script.next_step(body)
        except Exception as e:  # a respond() function failed: the test is wrong
            return self._fail(index, 500, "api_error", f"respond() raised {e!r}", request_id)
        if step is None:
            served = script.served
            message = (
                f"script exhausted after {served} replies; unscripted request with last "
                f"message {_last_message_excerpt(body)}"
            )
            return self._fail(
                index,
                500,
                "api_error",
                f"fake model: {message}",
                request_id,
                record=[f"script exhausted: {message}"],
            )
        if isinstance(step, ErrorReply) and step.mid_stream and body.get("stream"):
            return self._stream_error_answer(step, body, request_id)
        if isinstance(step, ErrorReply):
            return _error_answer(step, request_id)
        return self._reply_answer(step, body, request_id)

    def _refused(self, path: str, body: Body, index: int, request_id: str) -> Answer | None:
        """What this endpoint lacks or refuses: answered as such, not a violation."""
        if path == COUNT_TOKENS_PATH and not self.endpoint.count_tokens:
            return self._fail(index, 404, "not_found_error", f"no {path}", request_id, [])
        if body.get("thinking") and not self.endpoint.thinking:
            kind = "invalid_request_error"
            return self._fail(index, 400, kind, THINKING_REFUSED, request_id, [])
        return None

    def _script_for(self, body: Body) -> Script:
        with self._lock:
            routes = list(self._routes)
        return next((script for predicate, script in routes if predicate(body)), self.script)

    def _model_info(self, index: int, model: str, request_id: str) -> Answer:
        if self.models_error is not None:
            step = ErrorReply(self.models_error, "overloaded_error", "busy", should_retry=False)
            return _error_answer(step, request_id)
        if self.web_search_supported is None:
            return self._fail(index, 404, "not_found_error", "no models API", request_id, [])
        return Answer(200, model_info(model, self.web_search_supported), headers=_ids(request_id))

    def _reply_answer(
        self, reply: Reply, body: Body, request_id: str, delivered: bool = True
    ) -> Answer:
        blocks = self._complete_blocks(reply.blocks)
        usage: dict[str, Any] = {
            **self.cache.usage_for(body),
            "output_tokens": estimate_tokens(blocks),
        }
        usage.update(server_tool_usage(blocks))
        usage.update(reply.usage or {})
        usage = self.endpoint.usage(usage)
        if delivered and not reply.drop_after:  # a reply cut mid-stream is never accounted
            with self._lock:
                self.served_usage.append(dict(usage))
        message_id = f"msg_fake_{next(self._message_ids):04d}"
        model = str(body.get("model") or DEFAULT_MODEL)
        message = message_object(message_id, model, blocks, reply.final_stop_reason(), usage)
        with self._lock:
            self.replies.append(message)
        answer = Answer(
            200,
            headers=_ids(request_id),
            delay=reply.delay,
            drop_after=reply.drop_after,
            pace=reply.pace,
            stall_after=reply.stall_after,
        )
        if body.get("stream"):
            answer.events = stream_events(message, reply.chunks)
        else:
            answer.body = message
        return answer

    def _stream_error_answer(self, step: ErrorReply, body: Body, request_id: str) -> Answer:
        answer = self._reply_answer(Reply([], delay=step.delay), body, request_id, False)
        error = {**error_object(step.error_type, step.message, request_id), "type": "error"}
        answer.events = [*(answer.events or [])[:2], error]
        return answer

    def _complete_blocks(self, blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Ids filled in; a server tool result without tool_use_id answers the call before it."""
        out: list[dict[str, Any]] = []
        last_server_id = ""
        for block in map(dict, blocks):
            kind = block.get("type")
            if kind == "tool_use":
                number = next(self._tool_ids)
                block.setdefault("id", f"toolu_fake_{number:04d}")
                block.setdefault("input", {})
                if not self.endpoint.tool_ids:  # empty, then missing, by turns
                    block["id"] = ""
                    if number % 2 == 0:
                        del block["id"]
            elif kind == "server_tool_use":
                block.setdefault("id", f"srvtoolu_fake_{next(self._tool_ids):04d}")
                block.setdefault("input", {})
                last_server_id = block["id"]
            elif kind in ("web_search_tool_result", "web_fetch_tool_result"):
                block.setdefault("tool_use_id", last_server_id)
            elif kind in ("thinking", "redacted_thinking"):
                self.signatures.issue(block)
            out.append(block)
        return out

    def _violate(self, index: int, message: str) -> None:
        with self._lock:
            self.violations.append(Violation(index, message))

    def cut_short(self, path: str, headers: dict[str, str]) -> None:
        """Record a request whose body never arrived whole."""
        with self._lock:
            index = len(self.requests)
            now = time.monotonic()
            self.requests.append(RecordedRequest(index, path, headers, {}, now, complete=False))

    def _fail(
        self,
        index: int,
        status: int,
        error_type: str,
        message: str,
        request_id: str,
        record: list[str] | None = None,
    ) -> Answer:
        """Record violations and answer with an error the SDK will not retry."""
        for problem in [message] if record is None else record:
            self._violate(index, problem)
        headers = {**_ids(request_id), "x-should-retry": "false"}
        return Answer(status, error_object(error_type, message, request_id), headers=headers)


def _bad_tool_ids(body: Body) -> list[str]:
    """tool_use ids the API would refuse (its pattern); tool_result ids are checked against them."""
    return [
        f"tool_use id {block.get('id')!r} does not match {TOOL_ID.pattern}"
        for message in body.get("messages") or []
        if isinstance(message, dict) and isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict)
        and block.get("type") == "tool_use"
        and not TOOL_ID.match(str(block.get("id", "")))
    ]


def _ids(request_id: str) -> dict[str, str]:
    return {"request-id": request_id}


def _error_answer(step: ErrorReply, request_id: str) -> Answer:
    seconds = 0.01 if step.retry_after is None else step.retry_after
    headers = {
        **_ids(request_id),
        "retry-after-ms": f"{seconds * 1000:g}",
        "retry-after": f"{seconds:g}",
    }
    if step.should_retry is not None:
        headers["x-should-retry"] = "true" if step.should_retry else "false"
    body = error_object(step.error_type, step.message, request_id)
    return Answer(step.status, body, headers=headers, delay=step.delay)


def _last_message_excerpt(body: Body) -> str:
    messages = body.get("messages") or [{}]
    return json.dumps(messages[-1])[:200]


# -- HTTP plumbing --------------------------------------------------------------------------------


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, fake: FakeAnthropic) -> None:
        self.fake = fake
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        self.stopping = threading.Event()  # wakes handlers out of a reply's delay
        super().__init__(("127.0.0.1", fake.port), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host name (socket.getfqdn), which can be slow.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that went away mid-answer is not an error of the test

    def close_connections(self) -> None:
        """Unblock handler threads waiting on keep-alive connections or in a reply's delay (a
        stall of 60 s that the test no longer waits for), and wait for them."""
        self.stopping.set()
        with self.connections_lock:
            open_now = list(self.connections)
        for conn in open_now:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + 2.0
        while self.connections and time.monotonic() < deadline:
            time.sleep(0.005)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer
    timeout = 60  # an idle keep-alive connection ends its thread after this

    def setup(self) -> None:
        super().setup()
        # SSE goes out as many small writes: without NODELAY, Nagle + delayed ACK add ~40 ms each
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.server.connections_lock:
            self.server.connections.add(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            with self.server.connections_lock:
                self.server.connections.discard(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {k.lower(): v for k, v in self.headers.items()}
        answer = self.server.fake.answer(self.path, headers, raw)
        if answer.status == 0:  # cut short: its sender is gone, there is no one to answer
            self.close_connection = True
            return
        if answer.delay and answer.stall_after is None and self._paused(answer.delay):
            return
        try:
            if answer.events is not None:
                self._write_stream(answer)
            else:
                self._write_json(answer)
        except OSError:
            self.close_connection = True  # the client went away

    def do_GET(self) -> None:
        self.do_POST()

    def _write_json(self, answer: Answer) -> None:
        data = json.dumps(answer.body).encode()
        self.send_response(answer.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.end_headers()
        if answer.drop_after is not None:
            self.wfile.write(data[: len(data) // 2])
            self._cut()
            return
        self.wfile.write(data)

    def _write_stream(self, answer: Answer) -> None:
        self.send_response(answer.status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.end_headers()
        for sent, event in enumerate(answer.events or []):
            if answer.drop_after is not None and sent >= answer.drop_after:
                self._cut()
                return
            if sent == answer.stall_after and self._paused(answer.delay):
                return
            data = sse(event)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
            if answer.pace:
                time.sleep(answer.pace)
        if answer.drop_after is not None:  # all events sent: cut before the final chunk
            self._cut()
            return
        self.wfile.write(b"0\r\n\r\n")

    def _paused(self, seconds: float) -> bool:
        """Waits `seconds`; True when the server stopped meanwhile (the handler just ends)."""
        if self.server.stopping.wait(seconds):
            self.close_connection = True
            return True
        return False

    def _cut(self) -> None:
        """Drop the TCP connection mid-reply."""
        self.wfile.flush()
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
