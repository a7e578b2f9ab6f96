"""Reading MCP server configs with the liberties real `.mcp.json` files take."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_cli.ext.mcp.names import tool_name
from agent_cli.ext.mcp.servers import load_servers, normalise, read_servers_file
from agent_cli.ext.mcp.settings import MissingVariable, expand
from agent_cli.runtime.extensions.settings import parse_all


@pytest.fixture(autouse=True)
def user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config" / "agent"


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")


def test_expand_variables_and_defaults():
    env = {"HOME": "/h", "EMPTY": ""}
    assert expand("${HOME}/x", env) == "/h/x"
    assert expand("${NOPE:-fallback}", env) == "fallback"
    assert expand("${NOPE:-}", env) == ""
    assert expand("${EMPTY:-d}", env) == "d"  # empty counts as unset, as in the shell
    assert expand("${EMPTY}", env) == ""
    assert expand("${input:token}", env) == "${input:token}"  # an editor's form: left alone
    with pytest.raises(MissingVariable, match="NOPE is not set"):
        expand("${NOPE}", env)


def test_normalise_takes_real_files_liberties():
    assert normalise({"command": "npx", "args": ["-y", "x"]}).transport == "stdio"
    assert normalise({"type": "streamable-http", "url": "https://h/mcp"}).transport == "http"
    spec = normalise({"url": "https://h/mcp", "description": "d", "alwaysAllow": ["a"]})
    assert spec.transport == "http"  # unknown fields ignored, url alone means http
    windows = normalise({"command": "cmd", "args": ["/c", "npx", "-y", "server"]})
    assert (windows.command, windows.args) == ("npx", ["-y", "server"])
    assert normalise({"command": "npx.cmd", "args": []}).command == "npx"
    assert normalise({"command": "node", "env": {"PORT": 8080}}).env == {"PORT": "8080"}
    with pytest.raises(ValueError, match="Windows path"):
        normalise({"command": "C:\\Python\\python.exe"})
    with pytest.raises(ValueError, match="unknown transport"):
        normalise({"type": "websocket", "url": "ws://h"})
    with pytest.raises(ValueError, match="needs a 'url'"):
        normalise({"type": "sse"})
    with pytest.raises(ValueError, match="disabled"):
        normalise({"command": "x", "disabled": True})


def test_read_servers_file_never_raises(tmp_path: Path):
    empty = tmp_path / "empty.json"
    write(empty, "")
    assert read_servers_file(empty) == ({}, [])
    broken = tmp_path / "broken.json"
    write(broken, "{nope")
    servers, lines = read_servers_file(broken)
    assert servers == {}
    assert "not valid JSON" in lines[0]
    other = tmp_path / "other.json"
    write(other, {"postgres": {"command": "x"}})
    assert 'no "mcpServers"' in read_servers_file(other)[1][0]
    assert read_servers_file(tmp_path / "absent.json") == ({}, [])


def test_sources_scopes_precedence_and_skips(tmp_path: Path, user_config: Path):
    workspace = tmp_path / "ws"
    write(
        workspace / ".mcp.json",
        {
            "mcpServers": {
                "proj": {"command": "uvx", "args": ["${PROJ_ARG:-default-arg}"]},
                "both": {"command": "project-version"},
                "needs": {"command": "x", "env": {"TOKEN": "${MISSING_TOKEN}"}},
                "bad": "not an object",
            }
        },
    )
    write(user_config / "mcp.json", {"mcpServers": {"both": {"command": "user-version"}}})
    write(workspace / ".agent" / "settings.json", {"mcp_servers": {"local": {"command": "l"}}})
    settings = parse_all(
        {
            "mcp_servers": {
                "local": {"command": "l"},
                "mine": {"type": "http", "url": "https://h/${HOST_PART}"},
            }
        }
    )
    loaded = load_servers(workspace, settings, env={"HOST_PART": "x"})
    by_name = {e.name: e for e in loaded.servers}
    assert sorted(by_name) == ["both", "local", "mine", "proj"]
    assert by_name["proj"].spec.args == ["default-arg"]
    assert by_name["proj"].written.args == ["${PROJ_ARG:-default-arg}"]
    assert by_name["mine"].spec.url == "https://h/x"
    assert by_name["both"].spec.command == "user-version"  # the user's own wins
    assert [e.scope for e in (by_name["proj"], by_name["local"], by_name["mine"])] == [
        "project",
        "project",
        "user",
    ]
    skipped = "\n".join(loaded.skipped)
    assert "server 'needs' skipped: environment variable MISSING_TOKEN is not set" in skipped
    assert "server 'bad' skipped: not a JSON object" in skipped
    assert "server 'both' skipped: also defined in" in skipped
    assert all(".mcp.json" in line for line in loaded.skipped)


def test_tool_names_follow_the_api_rules():
    taken: set[str] = set()
    assert tool_name("git hub", "get.issue", taken) == "mcp__git_hub__get_issue"
    assert tool_name("git.hub", "get issue", taken) == "mcp__git_hub__get_issue_2"
    long_a = tool_name("s", "x" * 80 + "a", taken)
    long_b = tool_name("s", "x" * 80 + "b", taken)
    assert len(long_a) == len(long_b) == 64
    assert long_a != long_b
    assert all(n.replace("_", "").replace("-", "").isalnum() for n in taken)
