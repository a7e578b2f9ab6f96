"""A small website on 127.0.0.1 for web_fetch tests: real HTTP, pages by path, requests recorded.

with WebSite() as site:
    site.page("/docs", "<html>...</html>")
    site.redirect("/old", "http://elsewhere.test/new")
    site.stream("/big", total=50_000_000)
"""

from __future__ import annotations

import contextlib
import socketserver
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

CHUNK = 64 * 1024


@dataclass
class Route:
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    stream_total: int | None = None  # stream this many bytes of filler instead of body
    stall: threading.Event | None = None  # send the headers, then wait for this before the body


class WebSite:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []  # (path, lower-cased headers)
        self.streamed_bytes = 0
        self._lock = threading.Lock()
        self._httpd: _Server | None = None

    def __enter__(self) -> WebSite:
        self._httpd = _Server(self)
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._httpd is not None
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return int(self._httpd.server_address[1])

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def page(
        self,
        path: str,
        body: str | bytes,
        content_type: str = "text/html; charset=utf-8",
        status: int = 200,
    ) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.routes[path] = Route(status, content_type, data)

    def redirect(self, path: str, location: str, status: int = 302) -> None:
        self.routes[path] = Route(status, "text/plain", b"moved", {"Location": location})

    def stream(self, path: str, total: int, content_type: str = "text/plain") -> None:
        self.routes[path] = Route(200, content_type, stream_total=total)

    def stalled(self, path: str, release: threading.Event) -> None:
        """Headers at once, the body only when `release` is set (a server that hangs)."""
        self.routes[path] = Route(200, "text/html", b"<p>late</p>", stall=release)

    def paths(self) -> list[str]:
        with self._lock:
            return [p for p, _ in self.requests]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, site: WebSite) -> None:
        self.site = site
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)  # no reverse lookup of the host name
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that stops reading at its size cap is not an error


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        site = self.server.site
        with site._lock:
            site.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
        route = site.routes.get(self.path, Route(404, "text/plain", b"not found"))
        self.send_response(route.status)
        self.send_header("Content-Type", route.content_type)
        for name, value in route.headers.items():
            self.send_header(name, value)
        length = route.stream_total if route.stream_total is not None else len(route.body)
        self.send_header("Content-Length", str(length))
        self.end_headers()
        if route.stall is not None:
            self.wfile.flush()
            route.stall.wait(30)
        if route.stream_total is None:
            self.wfile.write(route.body)
            return
        self._stream(route.stream_total)

    def _stream(self, total: int) -> None:
        line = b"filler text of a very large page\n"
        chunk = (line * (CHUNK // len(line) + 1))[:CHUNK]
        sent = 0
        with contextlib.suppress(OSError):
            while sent < total:
                piece = chunk[: min(CHUNK, total - sent)]
                self.wfile.write(piece)
                sent += len(piece)
                with self.server.site._lock:
                    self.server.site.streamed_bytes = sent
        self.close_connection = True
