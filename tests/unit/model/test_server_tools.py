"""Server tool blocks: what validate_request accepts, what the fake server streams, how they are
declared, shown and priced."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anthropic
import pytest

from agent_cli.core.errors import ConfigError
from agent_cli.core.events import CitedSource, SourcesCited, ToolEnd
from agent_cli.core.messages import validate_request
from agent_cli.core.settings.features import WebSettings
from agent_cli.core.settings.schema import Price, Settings, parse_settings
from agent_cli.model.accumulate import ReplyBuilder
from agent_cli.model.server_tools import declarations, markers, result_summary, sources
from agent_cli.model.usage import Usage
from agent_cli.ui.render import render
from tests.fake_model import FakeAnthropic
from tests.fake_model.web import cited, search_failed, searched

PAGE = ("Changelog", "https://example.org/changelog")


def with_ids(blocks: list[dict[str, Any]], use_id: str = "srvtoolu_1") -> list[dict[str, Any]]:
    out = []
    for block in blocks:
        block = dict(block)
        if block["type"] == "server_tool_use":
            block["id"] = use_id
        elif block["type"] == "web_search_tool_result":
            block["tool_use_id"] = use_id
        out.append(block)
    return out


def request(*assistant: list[dict[str, Any]], tools: Any = None) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "q"}]
    for content in assistant:
        messages += [{"role": "assistant", "content": content}, {"role": "user", "content": "next"}]
    body: dict[str, Any] = {"model": "m", "max_tokens": 10, "messages": messages}
    if tools is not None:
        body["tools"] = tools
    return body


def test_a_search_exchange_with_citations_is_valid() -> None:
    content = [*with_ids(searched("q", [PAGE])), cited("It changed.", [(PAGE[1], PAGE[0], "x")])]
    assert validate_request(request(content, tools=declarations(WebSettings(search=True)))) == []


def test_a_paused_reply_may_end_with_a_running_search_only_when_it_is_the_last_message() -> None:
    running = with_ids(searched("q", [PAGE]))[:1]
    paused = request()
    paused["messages"].append({"role": "assistant", "content": running})
    assert validate_request(paused) == []
    assert validate_request(request(running)) == [
        "messages[1]: server_tool_use ['srvtoolu_1'] has no result"
    ]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (with_ids(searched("q", [PAGE]))[1:], "web_search_tool_result without its server_tool_use"),
        ([*with_ids(searched("q", [PAGE])), *with_ids(searched("r", [PAGE]))], "appears twice"),
        ([{"type": "text", "text": "x", "citations": "none"}], "citations must be a list"),
    ],
)
def test_broken_server_blocks_are_violations(content: list[dict[str, Any]], problem: str) -> None:
    problems = validate_request(request(content))
    assert any(problem in p for p in problems), problems


def test_server_blocks_outside_an_assistant_message_are_violations() -> None:
    body = request()
    body["messages"][0]["content"] = with_ids(searched("q", [PAGE]))
    problems = validate_request(body)
    assert "messages[0].content[0]: server_tool_use outside an assistant message" in problems


@pytest.mark.parametrize(
    ("tool", "problem"),
    [
        ({"type": "web_search_2025", "name": "web_search"}, "unknown server tool type"),
        ({"type": "web_search_20250305", "name": "search"}, "unknown server tool type"),
        ({"type": "web_search_20250305", "name": "web_search", "max_uses": 0}, "max_uses"),
        (
            {
                "type": "web_search_20250305",
                "name": "web_search",
                "allowed_domains": ["a.org"],
                "blocked_domains": ["b.org"],
            },
            "cannot both be set",
        ),
    ],
)
def test_bad_server_tool_declarations_are_violations(tool: dict[str, Any], problem: str) -> None:
    problems = validate_request(request(tools=[tool]))
    assert any(problem in p for p in problems), problems


def test_declarations_follow_the_settings() -> None:
    assert declarations(WebSettings()) == []
    assert declarations(WebSettings(search=True, search_max_uses=3)) == [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
    ]
    both = WebSettings(search=True, allowed_domains=["docs.python.org"], blocked_domains=["x.io"])
    assert declarations(both)[0]["allowed_domains"] == ["docs.python.org"]
    assert "blocked_domains" not in declarations(both)[0]
    blocked = WebSettings(search=True, blocked_domains=["Pinterest.COM."])
    assert declarations(blocked)[0]["blocked_domains"] == ["pinterest.com"]


def test_a_domain_setting_that_is_a_url_exits_naming_the_key() -> None:
    with pytest.raises(ConfigError, match=r"web\.blocked_domains\.?.*not a domain name"):
        parse_settings({"web": {"blocked_domains": ["https://x.org/"]}})
    with pytest.raises(ConfigError, match=r"'web\.serch'"):
        parse_settings({"web": {"serch": True}})


def test_the_fake_server_streams_server_blocks_the_sdk_rebuilds_exactly(
    fake_model: FakeAnthropic,
) -> None:
    blocks = [
        *searched("httpx", [PAGE, ("Docs", "https://example.org/docs")]),
        cited("Answer.", [(PAGE[1], PAGE[0], "quoted")]),
        *search_failed("again"),
    ]
    fake_model.script.reply(blocks, stop_reason="pause_turn")

    async def main() -> tuple[list[str], ReplyBuilder]:
        async with anthropic.AsyncAnthropic(base_url=fake_model.base_url, api_key="sk-x") as c:
            seen: list[str] = []
            builder = ReplyBuilder()  # what the client puts together from the raw events
            events = await c.messages.create(
                model="m", max_tokens=9, messages=[{"role": "user", "content": "q"}], stream=True
            )
            async with events:
                async for event in events:
                    if event.type == "content_block_delta":
                        seen.append(event.delta.type)
                    builder.feed(event)
            return seen, builder

    deltas, builder = asyncio.run(main())
    assert "citations_delta" in deltas
    assert "input_json_delta" in deltas
    (sent,) = fake_model.replies
    assert json.dumps(builder.content(), sort_keys=True) == json.dumps(
        sent["content"], sort_keys=True
    )
    assert builder.stop_reason == "pause_turn"
    assert builder.usage_totals().web_search_requests == 2


def test_sources_are_numbered_by_first_citation() -> None:
    first = cited("a", [("https://b.org", "B", "x")])
    second = cited("c", [("https://a.org", "A", "y"), ("https://b.org", "B", "z")])
    numbered = sources([first, {"type": "text", "text": "plain"}, second])
    assert [(s.n, s.url) for s in numbered] == [(1, "https://b.org"), (2, "https://a.org")]
    assert markers(second, numbered) == " [2][1]"
    assert markers({"type": "text", "text": "plain"}, numbered) == ""


def test_a_failed_search_is_an_error_line() -> None:
    use, result = search_failed("httpx", "too_many_requests")
    assert result_summary(use, result) == (
        'web_search "httpx": failed (too_many_requests)',
        True,
        [],
    )


def test_searches_are_priced_per_use() -> None:
    price = Price(input=3, output=15, cache_read=0.3, cache_write=3.75)
    assert Usage(web_search_requests=3).cost(price) == pytest.approx(0.03)
    assert (Usage(web_search_requests=1) + Usage(web_search_requests=2)).web_search_requests == 3
    assert Settings().prices["claude-sonnet-4-6"].web_search_per_1k == 10.0


def test_the_repl_shows_searches_pages_and_numbered_sources() -> None:
    use, result = with_ids(searched("httpx 0.28", [PAGE]))
    summary, _, _ = result_summary(use, result)
    search = ToolEnd(id="s", name="web_search", is_error=False, summary=summary)
    assert render.tool_end(search, 100, color=False) == (
        '✔ web_search "httpx 0.28": 1 result — Changelog'
    )
    page = ToolEnd(
        id="f", name="web_fetch", is_error=False, summary="web_fetch httpx changelog (12.3 kB)"
    )
    assert render.tool_end(page, 100, color=False) == "✔ web_fetch httpx changelog (12.3 kB)"
    cited_sources = SourcesCited(sources=[CitedSource(n=1, title="Changelog", url=PAGE[1])])
    assert render.event_line(cited_sources, 100, color=False) == (
        "Sources:\n[1] Changelog — https://example.org/changelog"
    )


def test_the_summariser_reads_searches_as_queries_and_result_titles() -> None:
    from agent_cli.context.summary import render_history

    content = [*with_ids(searched("httpx 0.28", [PAGE])), cited("Changed.", [(PAGE[1], "C", "q")])]
    rendered = render_history(
        [{"role": "user", "content": "q"}, {"role": "assistant", "content": content}], 10_000
    )
    assert '[server tool call web_search] {"query": "httpx 0.28"}' in rendered
    assert "[web search results]\nChangelog <https://example.org/changelog>" in rendered
    assert "encrypted" not in rendered


def test_a_searched_and_cited_reply_on_the_repl_screen() -> None:
    from agent_cli.core.events import TextDelta, ToolStart, TurnEnd
    from agent_cli.ui.turn import TurnView

    use, result = with_ids(searched("httpx 0.28", [PAGE]))
    summary, _, _ = result_summary(use, result)
    view = TurnView(width=100, color=False)
    events = [
        TextDelta(text="Let me look.\n\n"),
        ToolStart(id="srvtoolu_1", name="web_search", input={"query": "httpx 0.28"}),
        ToolEnd(id="srvtoolu_1", name="web_search", is_error=False, summary=summary),
        TextDelta(text="It dropped proxies. [1]"),
        SourcesCited(sources=[CitedSource(n=1, title="Changelog", url=PAGE[1])]),
        TurnEnd(stop="done", text="", rounds=1),
    ]
    lines = [line for event in events for line in view.feed(event)]
    assert lines == [
        "Let me look.\n",
        '✔ web_search "httpx 0.28": 1 result — Changelog',
        "It dropped proxies. [1]\n",
        "Sources:\n[1] Changelog — https://example.org/changelog",
    ]
