"""The pieces of the MCP boundary (issue 50, items 9 and 11) on their own: the order of modes a
client may choose from, the folder a session may open in, the agent's own credentials never
expanded into a server's config, and what `agent trust` shows of an HTTP server."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp_types import jsonrpc_message_adapter
from pydantic import ValidationError

from agent_cli.ext.mcp.servers import entries_from, project_trust_items
from agent_cli.ext.mcp.settings import CredentialVariable, McpServerSpec, expand
from agent_cli.serve.mcp_bounds import Refused, client_mode, session_folder
from agent_cli.serve.mcp_wire import error_for


@pytest.mark.parametrize(
    ("server", "allowed"),
    [
        ("plan", ["plan"]),
        ("default", ["plan", "default"]),
        ("accept-edits", ["plan", "default", "accept-edits"]),
        ("bypass", ["plan", "default", "accept-edits", "bypass"]),
    ],
)
def test_a_client_may_keep_or_narrow_the_servers_mode(server: Any, allowed: list[str]) -> None:
    assert client_mode(None, server) is None  # the server's own then
    for mode in ("plan", "default", "accept-edits", "bypass"):
        if mode in allowed:
            assert client_mode(mode, server) == mode
        else:
            with pytest.raises(Refused, match=f"'{mode}' is wider than this server's mode"):
                client_mode(mode, server)


def test_a_session_folder_is_the_workspace_or_a_real_folder_inside(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / "a" / "b").mkdir(parents=True)
    outside.mkdir()
    (workspace / "out").symlink_to(outside)
    (workspace / "in").symlink_to(workspace / "a")  # even one that stays inside: not followed
    (workspace / "file").write_text("x")
    assert session_folder(workspace, None) == workspace
    assert session_folder(workspace, ".") == workspace
    assert session_folder(workspace, "a/b") == workspace / "a" / "b"
    assert session_folder(workspace, str(workspace / "a")) == workspace / "a"
    assert session_folder(workspace, "a/b/../..") == workspace
    assert session_folder(workspace, "out/..") == workspace  # `..` as written, not via the link
    refusals = {
        str(outside): "outside this server's workspace",
        "..": "outside this server's workspace",
        "a/../../outside": "outside this server's workspace",
        "out": "symbolic link",
        str(workspace / "in" / "b"): "symbolic link",
        "missing": "not a directory",
        "file": "not a directory",
    }
    for cwd, why in refusals.items():
        with pytest.raises(Refused, match=why):
            session_folder(workspace, cwd)


def test_the_workspace_named_through_a_link_outside_it_is_the_workspace(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "alias").symlink_to(workspace)
    assert session_folder(workspace, str(tmp_path / "alias")) == workspace


ENV = {"ANTHROPIC_API_KEY": "sk-real-key", "ANTHROPIC_AUTH_TOKEN": "tok-real", "HOME": "/h"}


@pytest.mark.parametrize("name", ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"])
def test_the_agents_credentials_are_never_expanded(name: str) -> None:
    for text in (f"${{{name}}}", f"Bearer ${{{name}}}", f"${{{name}:-fallback}}"):
        with pytest.raises(CredentialVariable, match=rf"\${{{name}}}"):
            expand(text, ENV)
    assert expand("${HOME}/x", ENV) == "/h/x"


@pytest.mark.parametrize(
    "field",
    [
        {"command": "${ANTHROPIC_API_KEY}"},
        {"command": "srv", "args": ["--key", "${ANTHROPIC_API_KEY}"]},
        {"command": "srv", "env": {"KEY": "${ANTHROPIC_API_KEY}"}},
        {"command": "srv", "cwd": "/tmp/${ANTHROPIC_AUTH_TOKEN}"},
        {"url": "https://x.invalid/?k=${ANTHROPIC_API_KEY}"},
        {"url": "https://x.invalid/", "headers": {"Authorization": "Bearer ${ANTHROPIC_API_KEY}"}},
    ],
)
def test_a_server_naming_one_is_skipped_in_every_scope(field: dict[str, Any]) -> None:
    for scope in ("user", "project"):
        loaded = entries_from({"srv": field}, "here", scope, ENV)
        assert loaded.servers == []
        [line] = loaded.skipped
        assert line.startswith("here: server 'srv' skipped: it names $")
        assert "the agent's own credential" in line
        assert "sk-real-key" not in line


def test_trust_shows_every_header_and_the_environment_as_written(tmp_path: Path) -> None:
    spec = {
        "type": "http",
        "url": "https://x.invalid/mcp",
        "headers": {"X-Team": "${TEAM}", "Authorization": "Bearer ${TOKEN}"},
        "env": {"A": "1"},
    }
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"web": spec}}))
    [item] = project_trust_items(tmp_path)
    assert item.description == (
        "mcp server web: http https://x.invalid/mcp env A=1 "
        "header 'Authorization: Bearer ${TOKEN}' header 'X-Team: ${TEAM}'"
    )
    changed = McpServerSpec.model_validate({**spec, "headers": {"X-Team": "${OTHER}"}})
    assert changed.trust_line() != McpServerSpec.model_validate(spec).trust_line()


def test_a_stdio_servers_trust_line_is_its_launch_line() -> None:
    """What users trusted before headers were shown stays trusted."""
    spec = McpServerSpec(command="node", args=["s.js"], env={"A": "1"}, cwd="sub")
    assert spec.trust_line() == spec.launch_line() == "A=1 node s.js (in sub)"


def _problem(line: str) -> Exception:
    try:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as e:
        return e
    raise AssertionError(f"{line!r} is a message")


def test_what_an_unreadable_line_is_answered() -> None:
    parse = error_for(_problem("not json" + os.linesep))
    invalid = error_for(_problem('{"jsonrpc": "2.0", "id": 3}'))
    assert parse is not None
    assert (parse.id, parse.error.code) == (None, -32700)
    assert invalid is not None
    assert (invalid.id, invalid.error.code) == (None, -32600)
    assert error_for(_problem("  \n")) is None
