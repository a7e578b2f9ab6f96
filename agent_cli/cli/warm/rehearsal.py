"""One whole `agent run` in the warm process before it serves: a prompt, two tool calls
(read_file, bash), a reply, against a model on loopback this module plays, in a throwaway home.

What a run builds on first use (the SDK's parsed event types, pydantic's validators of a
reply's blocks, a tool's and the transcript's serializers, the caches of a round) is then built
here once, in pages every child shares, instead of in each child's own: a child wrote ~27 MiB
of private pages without it, ~18 with it. Whatever the run changes in this process (its
variables, working directory, signal handlers, logging, the folders it syncs) is put back, and
it leaves no thread behind (the server forks only without threads). Where loopback cannot be
bound (`unshare -n`), nothing is rehearsed."""

from __future__ import annotations

import contextlib
import gc
import json
import logging
import os
import signal
import tempfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

PROMPT = ["run", "-q", "-p", "warm-up", "--permission-mode", "bypass"]
XDG = ("CONFIG", "STATE", "DATA", "CACHE")
# a model on loopback answers at once: one that does not (a stalled thread) ends the rehearsal
# in seconds, never the warm process's start
BOUNDED = {"request_timeout_s": 10, "stream_idle_timeout_s": 10, "max_retries": 0,
           "stream_retries": 0}  # fmt: skip
CALLS = (("read_file", {"path": "a.txt"}), ("bash", {"command": "echo warm"}))


Json = dict[str, Any]


def _blocks(reply: int) -> list[tuple[Json, Json]]:
    """Each content block of the model's `reply`-th answer and its one delta: the calls, then
    text."""
    if reply > 0:
        return [({"type": "text", "text": ""}, {"type": "text_delta", "text": "ok"})]
    return [
        (
            {"type": "tool_use", "id": f"toolu_warm{i}", "name": name, "input": {}},
            {"type": "input_json_delta", "partial_json": json.dumps(args)},
        )
        for i, (name, args) in enumerate(CALLS)
    ]


def _events(reply: int) -> list[tuple[str, Json]]:
    usage = {"input_tokens": 1, "output_tokens": 1}
    start: Json = {"id": f"msg_{reply}", "type": "message", "role": "assistant", "content": [],
                   "model": "warm-up", "stop_reason": None, "usage": usage}  # fmt: skip
    events: list[tuple[str, Json]] = [("message_start", {"message": start})]
    for index, (block, delta) in enumerate(_blocks(reply)):
        events += [
            ("content_block_start", {"index": index, "content_block": block}),
            ("content_block_delta", {"index": index, "delta": delta}),
            ("content_block_stop", {"index": index}),
        ]
    stop = "tool_use" if reply == 0 else "end_turn"
    events += [
        ("message_delta", {"usage": {"output_tokens": 1}, "delta": {"stop_reason": stop}}),
        ("message_stop", {}),
    ]
    return [(name, {"type": name, **data}) for name, data in events]


class _Model(BaseHTTPRequestHandler):
    replies = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
            self.send_error(404)
            return
        body = "".join(f"event: {n}\ndata: {json.dumps(d)}\n\n" for n, d in _events(_Model.replies))
        _Model.replies += 1
        data = body.encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.send_error(404)

    def log_message(self, format: str, *args: Any) -> None:
        return


@contextlib.contextmanager
def _model() -> Iterator[str]:
    """A loopback model, served by a thread that has ended when this exits."""
    _Model.replies = 0
    server = HTTPServer(("127.0.0.1", 0), _Model)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextlib.contextmanager
def _kept() -> Iterator[None]:
    """This process as it was: variables, working directory, standard streams, signal
    handlers, the root logger's handlers, the folders synced at the end, the collector's
    state. The run's own objects stay, frozen as a run freezes what it has made once it has
    imported: freed, they would leave holes across shared pages that each child's first
    objects fill, writing copies of those pages (a child's private memory grew by 1.1 MiB)."""
    from agent_cli.core.files import durable

    collecting, threshold = gc.isenabled(), gc.get_threshold()
    environ, cwd = dict(os.environ), Path.cwd()
    handling = {s: signal.getsignal(s) for s in signal.valid_signals()}
    root = logging.getLogger()
    logged, level = list(root.handlers), root.level
    synced = list(durable._FOLDERS)
    streams = [os.dup(1), os.dup(2)]
    try:
        yield
    finally:
        for fd, saved in zip((1, 2), streams, strict=True):
            os.dup2(saved, fd)
            os.close(saved)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(environ)
        for number, handled in handling.items():
            if handled is not None:
                with contextlib.suppress(OSError, ValueError):
                    signal.signal(number, handled)
        for handler in list(root.handlers):
            if handler not in logged:
                root.removeHandler(handler)
                handler.close()
        root.handlers[:], root.level = logged, level
        durable._FOLDERS[:] = synced
        gc.set_threshold(*threshold)
        (gc.enable if collecting else gc.disable)()


def _quiet() -> None:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)


def rehearse() -> bool:
    """The rehearsal; False when loopback could not be bound or the run failed."""
    from agent_cli.cli.entry import run_in_process

    try:
        with _model() as url, tempfile.TemporaryDirectory(prefix="agent-warm-") as home, _kept():
            workspace = Path(home) / "ws"
            workspace.mkdir()
            (workspace / "a.txt").write_text("warm\n")
            environment = _environment(home, url)
            os.environ.clear()
            os.environ.update(environment)
            os.chdir(workspace)
            _quiet()
            code = run_in_process(PROMPT)
    except OSError:
        return False
    finally:
        _threads_ended()
    return code == 0


def _threads_ended(patience_s: float = 5.0) -> None:
    """What the run started (a command's waiter, the executor's workers) has ended: the
    server forks only without threads."""
    for thread in threading.enumerate():
        if thread is not threading.main_thread():
            thread.join(patience_s)


def _environment(home: str, url: str) -> dict[str, str]:
    keep = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "TZ") if k in os.environ}
    return {
        **keep,
        "HOME": home,
        **{
            f"XDG_{kind}_HOME": f"{home}/.{kind.lower()}"
            for kind in ("CONFIG", "STATE", "DATA", "CACHE")
        },
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "warm-up",
        "AGENT_SETTINGS": json.dumps(BOUNDED),
        "AGENT_NO_SERVER": "1",
        "AGENT_SANDBOX": "off",
        "NO_COLOR": "1",
    }
