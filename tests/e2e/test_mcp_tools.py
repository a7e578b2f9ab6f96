"""MCP tools end to end: the test server (a real `mcp` server) over stdio and streamable HTTP,
the real SDK talking to the fake model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FAKE_API_KEY
from tests.fake_model import FakeAnthropic
from tests.mcp_support import http_server, make_agent, run, stdio_spec, turns

BYPASS = {"mode": "bypass"}


@pytest.fixture(autouse=True)
def sdk_env(fake_model: FakeAnthropic, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_model.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_API_KEY)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("AGENT_TRUST_WORKSPACE", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def tools_of(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in body.get("tools", [])}


def results_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"]


def test_stdio_tools_are_offered_sanitised_and_round_trip(
    fake_model: FakeAnthropic, tmp_path: Path
):
    fake_model.script.tool_use("mcp__testsrv__echo", text="hi").tool_use(
        "mcp__testsrv__dot_image"
    ).text("done")
    agent = make_agent(tmp_path, {"permissions": BYPASS, "mcp_servers": {"testsrv": stdio_spec()}})
    run(turns(agent, "use the server"))
    first, second, third = fake_model.bodies()
    offered = tools_of(first)
    assert "mcp__testsrv__dot_image" in offered  # "dot.image" sanitised
    echo = offered["mcp__testsrv__echo"]
    assert echo["input_schema"]["properties"]["text"]["type"] == "string"
    assert echo["input_schema"]["required"] == ["text"]
    assert echo["description"] == "Returns the text it is given."
    assert results_of(second)[0]["content"] == "echo: hi"
    image = results_of(third)[0]["content"]
    assert [b["type"] for b in image] == ["text", "image"]
    assert image[1]["source"]["media_type"] == "image/png"


def test_streamable_http_server_round_trips(fake_model: FakeAnthropic, tmp_path: Path):
    fake_model.script.tool_use("mcp__web__echo", text="over http").text("done")
    with http_server("http") as url:
        agent = make_agent(tmp_path, {"permissions": BYPASS, "mcp_servers": {"web": {"type": "http", "url": url}}})
        run(turns(agent, "go"))
    assert results_of(fake_model.bodies()[1])[0]["content"] == "echo: over http"


def test_sse_server_round_trips(fake_model: FakeAnthropic, tmp_path: Path):
    fake_model.script.tool_use("mcp__old__echo", text="over sse").text("done")
    with http_server("sse") as url:
        agent = make_agent(tmp_path, {"permissions": BYPASS, "mcp_servers": {"old": {"type": "sse", "url": url}}})
        run(turns(agent, "go"))
    assert results_of(fake_model.bodies()[1])[0]["content"] == "echo: over sse"
