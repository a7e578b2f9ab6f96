"""Blocks of the API's web search server tool, shaped as the API sends them, for scripts:

script.reply([*searched("httpx 0.28", [("Changelog", "https://x/changelog")]),
              cited("0.28 drops proxies.", [("https://x/changelog", "Changelog", "drops")])],
             stop_reason="pause_turn")
"""

from __future__ import annotations

import base64
from typing import Any


def _opaque(seed: str) -> str:
    """Stands in for the API's encrypted fields: opaque, and must come back unchanged."""
    return base64.b64encode(("enc:" + seed).encode()).decode()


def searched(
    query: str, results: list[tuple[str, str]], *, page_age: str | None = None
) -> list[dict[str, Any]]:
    """A server_tool_use (web_search) and its web_search_tool_result (ids filled by the server)."""
    return [
        {"type": "server_tool_use", "name": "web_search", "input": {"query": query}},
        {
            "type": "web_search_tool_result",
            "content": [
                {
                    "type": "web_search_result",
                    "title": title,
                    "url": url,
                    "encrypted_content": _opaque(url),
                    "page_age": page_age,
                }
                for title, url in results
            ],
        },
    ]


def search_failed(query: str, code: str = "max_uses_exceeded") -> list[dict[str, Any]]:
    return [
        {"type": "server_tool_use", "name": "web_search", "input": {"query": query}},
        {
            "type": "web_search_tool_result",
            "content": {"type": "web_search_tool_result_error", "error_code": code},
        },
    ]


def cited(text: str, sources: list[tuple[str, str, str]]) -> dict[str, Any]:
    """A text block citing (url, title, cited_text) search results."""
    citations = [
        {
            "type": "web_search_result_location",
            "url": url,
            "title": title,
            "cited_text": quote,
            "encrypted_index": _opaque(url + quote),
        }
        for url, title, quote in sources
    ]
    return {"type": "text", "text": text, "citations": citations}
