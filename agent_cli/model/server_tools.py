"""The API's server tools (web search): their declaration, and reading their blocks.

Server tools run on the API's side: the reply carries `server_tool_use` and its
`web_search_tool_result` (with encrypted content that must go back unchanged), text blocks carry
`citations`, and a long server-side loop may stop with `pause_turn`, to be continued by sending
the reply back. Nothing here changes a block; it only declares the tools and reads the blocks
for the user.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_cli.core.history import SameItems
from agent_cli.core.messages import Block
from agent_cli.core.settings.features import WebSettings

WEB_SEARCH_TYPE = "web_search_20250305"


def declarations(web: WebSettings) -> list[dict[str, Any]]:
    """The server tools `web` asks for, in a stable order (a stable tool block stays cached).
    The API takes allowed or blocked domains, not both: allowed ones, when set, win."""
    if not web.search:
        return []
    search: dict[str, Any] = {
        "type": WEB_SEARCH_TYPE,
        "name": "web_search",
        "max_uses": web.search_max_uses,
    }
    if web.allowed_domains:
        search["allowed_domains"] = list(web.allowed_domains)
    elif web.blocked_domains:
        search["blocked_domains"] = list(web.blocked_domains)
    return [search]


def is_server_tool(tool: dict[str, Any]) -> bool:
    return bool(tool.get("type", "custom") != "custom")


# asked of every request's tools: the same schemas every round
_ANY_SERVER_TOOL: SameItems[bool] = SameItems(lambda tools: any(map(is_server_tool, tools)))


def any_server_tool(tools: list[dict[str, Any]]) -> bool:
    return _ANY_SERVER_TOOL.of(tools)


@dataclass(frozen=True)
class SearchSource:
    n: int
    title: str
    url: str


def sources(blocks: list[Block]) -> list[SearchSource]:
    """The cited pages of a reply, numbered in order of first citation."""
    found: dict[str, SearchSource] = {}
    for block in blocks:
        for citation in _citations(block):
            url = str(citation.get("url") or "")
            if url and url not in found:
                title = str(citation.get("title") or url)
                found[url] = SearchSource(len(found) + 1, title, url)
    return list(found.values())


def markers(block: Block, numbered: list[SearchSource]) -> str:
    """' [1][2]' for a text block that cites sources 1 and 2; '' for one that cites none."""
    by_url = {s.url: s.n for s in numbered}
    cited = [str(c.get("url")) for c in _citations(block)]
    ns = dict.fromkeys(by_url[url] for url in cited if url in by_url)
    return " " + "".join(f"[{n}]" for n in ns) if ns else ""


def _citations(block: Block) -> list[dict[str, Any]]:
    if block.get("type") != "text" or not isinstance(block.get("citations"), list):
        return []
    return [c for c in block["citations"] if isinstance(c, dict)]


def is_server_result(block: Block) -> bool:
    kind = str(block.get("type", ""))
    return kind.endswith("_tool_result") and kind != "tool_result"


def result_summary(use: Block, result: Block) -> tuple[str, bool, list[dict[str, str]]]:
    """One line for the user, whether the search failed, and the results' titles and URLs."""
    name = str(use.get("name", "server tool"))
    query = str((use.get("input") or {}).get("query") or (use.get("input") or {}).get("url") or "")
    content = result.get("content")
    if isinstance(content, dict) and "error_code" in content:
        return f'{name} "{query}": failed ({content["error_code"]})', True, []
    items = [c for c in content if isinstance(c, dict)] if isinstance(content, list) else []
    found = [{"title": str(c.get("title", "")), "url": str(c.get("url", ""))} for c in items]
    titles = " · ".join(f["title"] for f in found[:3] if f["title"])
    count = f"{len(found)} result" + ("" if len(found) == 1 else "s")
    return f'{name} "{query}": {count}' + (f" — {titles}" if titles else ""), False, found
