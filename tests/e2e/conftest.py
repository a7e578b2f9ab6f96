"""Fixtures of the in-process end-to-end tests."""

from __future__ import annotations

import http.server
import os
import threading
from collections.abc import Iterator

import pytest

from tests.e2e.warm import Via, Warm


@pytest.fixture(scope="module")
def warm_module() -> Iterator[Warm]:
    """One warm process for a module's tests (each run is a fresh fork of it, so nothing of
    one test's run reaches another's); stopped when the module is done."""
    warm = Warm(dict(os.environ))
    warm.start()
    yield warm
    warm.stop()


@pytest.fixture
def warm(fake_env: dict[str, str]) -> Iterator[Warm]:
    """A warm process of this test's own (not started yet); stopped afterwards."""
    server = Warm(fake_env)
    yield server
    server.stop()


@pytest.fixture(params=["in-process", "warm"])
def via(request: pytest.FixtureRequest, fake_env: dict[str, str]) -> Via:
    """The same test run both ways: in-process, and through the warm process."""
    if request.param == "in-process":
        return Via("in-process", fake_env, None)
    warm: Warm = request.getfixturevalue("warm_module")
    return Via("warm", fake_env, warm)


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "12")
        self.end_headers()
        self.wfile.write(b"hello there\n")

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def port() -> Iterator[int]:
    """A page on 127.0.0.1 (`hello there`) that a confined command may or may not reach."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()
