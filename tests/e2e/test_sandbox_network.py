"""The sandbox's network through `agent run`: only the allowlist, through the agent's proxy.
Real bubblewrap, real curl, local HTTP servers on 127.0.0.1, the fake model."""

from __future__ import annotations

import http.server
import json
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.helpers import last_user_blocks, run_agent
from tests.fake_model import FakeAnthropic

pytestmark = pytest.mark.skipif(
    shutil.which("bwrap") is None or shutil.which("curl") is None,
    reason="bubblewrap or curl not installed",
)


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        port = self.server.server_address[1]  # type: ignore[index]
        body = f"hello from {port} {self.path}\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def servers() -> Iterator[list[int]]:
    """Two local HTTP servers; their ports."""
    running = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello) for _ in range(2)]
    for server in running:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield [server.server_address[1] for server in running]
    for server in running:
        server.shutdown()
        server.server_close()


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    return ws


def _user_settings(env: dict[str, str], settings: dict[str, object]) -> None:
    folder = Path(env["HOME"]) / ".config" / "agent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(settings))


def _results(fake_model: FakeAnthropic) -> list[str]:
    return [str(b["content"]) for b in last_user_blocks(fake_model.bodies()[-1])]


def test_an_allowed_port_goes_through_the_proxy_and_an_unlisted_one_is_refused_naming_the_setting(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, servers: list[int]
) -> None:
    allowed, other = servers
    _user_settings(
        fake_env, {"sandbox": {"network": {"allowed_domains": [f"127.0.0.1:{allowed}"]}}}
    )
    ws = _workspace(tmp_path)
    commands = [
        f"curl -sS http://127.0.0.1:{allowed}/ok",
        f"curl -sS http://127.0.0.1:{other}/no",
        f"curl -sS --noproxy '*' http://127.0.0.1:{allowed}/direct",  # no way round the proxy
        f"curl -sS -p https://127.0.0.1:{other}/tunnel",  # CONNECT to the unlisted port
    ]
    fake_model.script.tool_uses(*[("bash", {"command": c}) for c in commands]).text("done")
    proc = run_agent(fake_env, ws, "run", "-p", "fetch")
    assert proc.returncode == 0, proc.stderr
    ok, refused, direct, tunnel = _results(fake_model)
    assert f"hello from {allowed} /ok" in ok
    assert "exit code: 0" in ok
    assert "hello from" not in refused
    assert f"127.0.0.1:{other} is not in sandbox.network.allowed_domains" in refused
    assert f'add "127.0.0.1:{other}"' in refused
    assert "hello from" not in direct
    assert "exit code: 0" not in direct
    assert "hello from" not in tunnel
    assert "[sandbox: network request refused:" in tunnel
    assert "sandbox.network.allowed_domains" in tunnel


def test_blocked_domains_and_private_names_are_refused_even_when_listed(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, servers: list[int]
) -> None:
    port = servers[0]
    network = {"allowed_domains": ["localhost", "blocked.example", f"127.0.0.1:{port}"]}
    _user_settings(
        fake_env, {"sandbox": {"network": network}, "web": {"blocked_domains": ["blocked.example"]}}
    )
    ws = _workspace(tmp_path)
    commands = [
        f"curl -sS http://localhost:{port + 1 if port < 65535 else 1}/named",
        "curl -sS http://blocked.example/x",
    ]
    fake_model.script.tool_uses(*[("bash", {"command": c}) for c in commands]).text("done")
    proc = run_agent(fake_env, ws, "run", "-p", "fetch")
    assert proc.returncode == 0, proc.stderr
    named, blocked = _results(fake_model)
    assert "resolves to 127.0.0.1, a loopback, private or link-local address" in named
    assert "lists them by address" in named
    assert "blocked by web.blocked_domains (blocked.example)" in blocked


def test_a_bad_allowed_domains_entry_exits_2_naming_it(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    _user_settings(fake_env, {"sandbox": {"network": {"allowed_domains": ["pypi.org:99999"]}}})
    proc = run_agent(fake_env, _workspace(tmp_path), "run", "-p", "x")
    assert proc.returncode == 2
    assert "allowed_domains" in proc.stderr
    assert "pypi.org:99999" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_with_nothing_listed_run_has_no_network_and_the_result_names_the_setting(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, servers: list[int]
) -> None:
    ws = _workspace(tmp_path)
    commands = [
        "curl -sS http://example.com/",
        f"curl -sS http://127.0.0.1:{servers[0]}/",
        "env | grep -ci _proxy",
    ]
    fake_model.script.tool_uses(*[("bash", {"command": c}) for c in commands]).text("done")
    proc = run_agent(fake_env, ws, "run", "-p", "fetch")
    assert proc.returncode == 0, proc.stderr
    named, local, env = _results(fake_model)
    assert "[sandbox: no network:" in named
    assert "sandbox.network.allowed_domains" in named
    assert "hello from" not in local
    assert "exit code: 0" not in local
    assert env.startswith("0\n")  # no proxy to point at: nothing could get through it
