"""MCP tools end to end: the test server (a real `mcp` server) over stdio and streamable HTTP,
the real SDK talking to the fake model."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any, cast

import pytest

from agent_cli.core.events import Event, ToolEnd
from tests.conftest import FAKE_API_KEY
from tests.e2e.mcp_support import http_server, make_agent, manager, run, stdio_spec, turns
from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import system_contains
from tests.waiting import until

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


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_http_and_sse_servers_round_trip(transport: str, fake_model: FakeAnthropic, tmp_path: Path):
    fake_model.script.tool_use("mcp__web__echo", text=f"over {transport}").text("done")
    with http_server(transport) as url:
        servers = {"web": {"type": transport, "url": url}}
        agent = make_agent(tmp_path, {"permissions": BYPASS, "mcp_servers": servers})
        run(turns(agent, "go"))
    assert results_of(fake_model.bodies()[1])[0]["content"] == f"echo: over {transport}"


def test_timeout_crash_and_error_results_then_the_session_goes_on(
    fake_model: FakeAnthropic, tmp_path: Path
):
    script = fake_model.script
    script.tool_use("mcp__testsrv__slow", seconds=30).tool_use("mcp__testsrv__fail")
    script.tool_use("mcp__testsrv__garbage").tool_use("mcp__testsrv__echo", text="still")
    script.tool_use("mcp__testsrv__crash").tool_use("mcp__testsrv__echo", text="again")
    script.text("done")
    settings = {
        "permissions": BYPASS,
        "mcp": {"call_timeout_s": 1},
        "mcp_servers": {"testsrv": stdio_spec()},
    }
    agent = make_agent(tmp_path, settings)
    [events] = run(turns(agent, "break it"))
    bodies = fake_model.bodies()
    timed_out, failed, garbled, alive, crashed, echoed = (results_of(b)[0] for b in bodies[1:7])
    assert timed_out["is_error"] is True
    assert "no answer within 1 s" in timed_out["content"]
    assert failed["is_error"] is True
    assert "this tool always fails" in failed["content"]
    assert garbled["is_error"] is True  # junk on the wire, then no answer: a timeout
    assert (alive["content"], alive.get("is_error")) == ("echo: still", None)
    assert crashed["is_error"] is True
    assert "failed" in crashed["content"]
    assert (echoed["content"], echoed.get("is_error")) == ("echo: again", None)  # restarted
    assert events[-1].type == "turn_end"
    assert manager(agent).restarts == {"testsrv": 1}
    ends = [e for e in events if isinstance(e, ToolEnd)]
    assert [e.is_error for e in ends] == [True, True, True, False, True, False]


def test_a_changed_tool_list_is_offered_at_the_next_request(
    fake_model: FakeAnthropic, tmp_path: Path
):
    fake_model.script.tool_use("mcp__testsrv__grow").tool_use("mcp__testsrv__late", n=3)
    fake_model.script.text("done")
    agent = make_agent(tmp_path, {"permissions": BYPASS, "mcp_servers": {"testsrv": stdio_spec()}})
    run(turns(agent, "grow"))
    first, second, third = fake_model.bodies()
    assert "mcp__testsrv__late" not in tools_of(first)
    assert "mcp__testsrv__late" in tools_of(second)
    assert list(tools_of(second))[: len(tools_of(first))] == list(tools_of(first))  # a prefix
    assert results_of(third)[0]["content"] == "late 3"


def test_deny_rule_blocks_a_tool_and_default_mode_asks(fake_model: FakeAnthropic, tmp_path: Path):
    fake_model.script.tool_use("mcp__testsrv__echo", text="x").tool_use("mcp__testsrv__where")
    fake_model.script.tool_use("mcp__testsrv__big", chars=50_000).text("done")
    permissions = {"mode": "default", "deny": ["mcp__testsrv__ech*"], "allow": ["mcp__testsrv__b*"]}
    servers = {"testsrv": stdio_spec()}
    agent = make_agent(tmp_path, {"permissions": permissions, "mcp_servers": servers})
    run(turns(agent, "try"))
    denied, asked, big = (results_of(b)[0] for b in fake_model.bodies()[1:4])
    assert denied["is_error"] is True
    assert "permissions.deny pattern 'mcp__testsrv__ech*'" in denied["content"]
    assert asked["is_error"] is True  # headless: nobody to ask, and the hint says how to allow
    assert '"mcp__testsrv__where" to permissions.allow' in asked["content"]
    assert "is_error" not in big  # allowed by the glob, and over the result budget:
    assert "the whole output is saved at" in big["content"]
    assert len(big["content"]) < 5_000


def test_plan_mode_offers_only_read_only_tools(fake_model: FakeAnthropic, tmp_path: Path):
    fake_model.script.tool_use("mcp__testsrv__crash").text("done")
    settings = {"permissions": {"mode": "plan"}, "mcp_servers": {"testsrv": stdio_spec()}}
    agent = make_agent(tmp_path, settings)
    run(turns(agent, "plan"))
    first, second = fake_model.bodies()
    assert [n for n in tools_of(first) if n.startswith("mcp__")] == ["mcp__testsrv__echo"]
    refused = results_of(second)[0]
    assert refused["is_error"] is True
    assert "Unknown tool 'mcp__testsrv__crash'" in refused["content"]  # not offered, not run
    assert manager(agent).connections["testsrv"].error is None  # so it never crashed


def test_interrupting_a_call_cancels_it_on_the_server(fake_model: FakeAnthropic, tmp_path: Path):
    mark = tmp_path / "cancelled.txt"
    fake_model.script.tool_use("mcp__testsrv__slow", seconds=60).text("never")
    spec = {**stdio_spec(), "env": {"MCP_TEST_MARK": str(mark)}}
    agent = make_agent(tmp_path, {"permissions": BYPASS, "mcp_servers": {"testsrv": spec}})

    async def interrupt() -> None:
        await manager(agent).wait_started()
        events = cast(AsyncGenerator[Event, None], agent.run_turn("wait"))
        async for event in events:
            if event.type == "tool_start":
                break
        await until(lambda: mark.exists(), what="the server to begin the call")
        await events.aclose()  # what Ctrl-C does to the turn
        await until(lambda: mark.read_text() == "cancelled", what="the server to be told")
        await agent.registry.aclose()
        await agent.client.close()

    run(interrupt())
    assert mark.read_text() == "cancelled"
    last = agent.session.messages[-1]["content"][0]
    assert last["type"] == "tool_result"
    assert "interrupted" in last["content"]


def test_over_the_budget_the_model_searches_and_gets_what_it_found(
    fake_model: FakeAnthropic, tmp_path: Path
):
    fake_model.script.tool_use("mcp_tool_search", query="mcp__testsrv__filler_7", limit=1)
    fake_model.script.tool_use("mcp__testsrv__filler_7", query="q").text("done")
    settings = {
        "permissions": BYPASS,
        "mcp": {"tool_budget_tokens": 500},
        "mcp_servers": {"testsrv": stdio_spec("--tools", "30")},
    }
    agent = make_agent(tmp_path, settings)
    run(turns(agent, "find a tool"))
    first, second, third = fake_model.bodies()
    assert [n for n in tools_of(first) if n.startswith("mcp")] == ["mcp_tool_search"]
    assert [n for n in tools_of(second) if n.startswith("mcp")] == [
        "mcp_tool_search",
        "mcp__testsrv__filler_7",
    ]
    assert results_of(third)[0]["content"] == "filler 7: q (10)"


def test_subagents_get_the_parents_mcp_tools(fake_model: FakeAnthropic, tmp_path: Path):
    fake_model.script.tool_use("task", description="look", prompt="use echo")
    fake_model.script.tool_use("mcp__testsrv__echo", text="from the child")
    fake_model.script.text('{"conclusion": "echoed", "confidence": "high"}').text("done")
    agent = make_agent(tmp_path, {"permissions": BYPASS, "mcp_servers": {"testsrv": stdio_spec()}})
    run(turns(agent, "delegate"))
    child_first, child_second = fake_model.bodies()[1:3]
    assert "mcp__testsrv__echo" in tools_of(child_first)
    assert "task" not in tools_of(child_first)
    assert results_of(child_second)[0]["content"] == "echo: from the child"


NARROW_BODY = "You only echo."
NARROW = (
    "---\nname: echoer\ndescription: Echoes.\n"
    "tools: Read, mcp__testsrv__e*, mcp__testsrv__where\n---\n" + NARROW_BODY + "\n"
)
NO_MCP_BODY = "You never touch a server."
NO_MCP = (
    "---\nname: offline\ndescription: No servers.\n"
    "disallowedTools: mcp__testsrv__*\n---\n" + NO_MCP_BODY + "\n"
)


def test_a_subagent_type_narrows_the_mcp_tools(fake_model: FakeAnthropic, tmp_path: Path):
    """`.claude/agents/*.md`: a `tools:` glob or exact name keeps just those MCP tools; a
    `disallowedTools:` glob takes them all away, the other tools staying."""
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "echoer.md").write_text(NARROW)
    (agents / "offline.md").write_text(NO_MCP)
    note = '{"conclusion": "ok", "confidence": "high"}'
    fake_model.route(system_contains(NARROW_BODY)).text(note)
    fake_model.route(system_contains(NO_MCP_BODY)).text(note)
    script = fake_model.script
    script.tool_use("task", description="echo", prompt="echo it", agent_type="echoer")
    script.tool_use("task", description="offline", prompt="no servers", agent_type="offline")
    script.text("done")
    agent = make_agent(tmp_path, {"permissions": BYPASS, "mcp_servers": {"testsrv": stdio_spec()}})
    run(turns(agent, "delegate"))
    bodies = fake_model.bodies()
    (echoer,) = [b for b in bodies if system_contains(NARROW_BODY)(b)]
    (offline,) = [b for b in bodies if system_contains(NO_MCP_BODY)(b)]
    parent_mcp = {n for n in tools_of(bodies[0]) if n.startswith("mcp__")}
    assert {"mcp__testsrv__echo", "mcp__testsrv__where", "mcp__testsrv__crash"} <= parent_mcp
    assert sorted(tools_of(echoer)) == [
        "mcp__testsrv__echo",
        "mcp__testsrv__where",
        "read_file",
        "submit_note",
    ]
    offline_tools = set(tools_of(offline))
    assert not {n for n in offline_tools if n.startswith("mcp")}
    assert {"read_file", "bash", "submit_note"} <= offline_tools


def test_a_subagent_is_offered_what_its_own_search_found(fake_model: FakeAnthropic, tmp_path: Path):
    """The subagent sees the parent's MCP tools as they are at each of its requests, not as
    they were when it began: a tool it found over the budget is offered to it next."""
    fake_model.script.tool_use("task", description="find", prompt="find filler 7")
    fake_model.script.tool_use("mcp_tool_search", query="mcp__testsrv__filler_7", limit=1)
    fake_model.script.tool_use("mcp__testsrv__filler_7", query="q")
    fake_model.script.text('{"conclusion": "found", "confidence": "high"}').text("done")
    settings = {
        "permissions": BYPASS,
        "mcp": {"tool_budget_tokens": 500},
        "mcp_servers": {"testsrv": stdio_spec("--tools", "30")},
    }
    agent = make_agent(tmp_path, settings)
    run(turns(agent, "delegate"))
    child_first, child_second, child_third = fake_model.bodies()[1:4]
    assert [n for n in tools_of(child_first) if n.startswith("mcp")] == ["mcp_tool_search"]
    assert [n for n in tools_of(child_second) if n.startswith("mcp")] == [
        "mcp_tool_search",
        "mcp__testsrv__filler_7",
    ]
    assert results_of(child_third)[0]["content"] == "filler 7: q (10)"
