"""`web_fetch`'s work (the tool itself, its input and its cache, is the extension's __init__):
one web page as readable text, through the same result budget as every tool.

Permissions (asked per domain) are the gate's; this module refuses what no answer may allow:
other schemes, blocked domains, private addresses, URLs that carry a credential. A page fetched
again within `web.cache_ttl_s` comes from the session's cache.
"""

from __future__ import annotations

import re
import time
from collections.abc import MutableMapping
from typing import TYPE_CHECKING

from agent_cli.core.payloads import PageDisplay
from agent_cli.core.tool_contract import ToolContext, ToolResult
from agent_cli.tools.host_rules import Resolver, WebRefused, domain_of

if TYPE_CHECKING:
    from agent_cli.ext.web.convert import Converted
    from agent_cli.ext.web.http import Page

PASSAGE_WORDS = re.compile(r"\w{3,}")
CACHED_PAGES = 32  # pages kept per session; the oldest goes first


Cache = MutableMapping[str, tuple[float, ToolResult]]  # url -> (when, the result)


async def fetch_cached(
    url: str, prompt: str | None, ctx: ToolContext, resolver: Resolver, cache: Cache
) -> ToolResult:
    """The page at `url` (from `cache`, one of the session's tool's, within the TTL)."""
    web = ctx.settings.web
    if any(secret and secret in url for secret in ctx.secrets):
        refusal = "The URL contains the agent's own API key; it is never sent, in any mode."
        return ToolResult(refusal, is_error=True, summary="web_fetch: refused (API key)")
    cached = cache.get(url)
    if cached is not None and time.monotonic() - cached[0] < web.cache_ttl_s:
        return _copy(cached[1], " (cached)")
    try:
        result = await _fetch(url, prompt, ctx, resolver)
    except WebRefused as e:
        return ToolResult(str(e), is_error=True, summary=f"web_fetch {url}: refused")
    except TimeoutError:
        message = f"Fetching {url} took longer than {web.timeout_s:g} s (web.timeout_s)."
        return ToolResult(message, is_error=True, summary=f"web_fetch {url}: timed out")
    if not result.is_error:
        cache.pop(url, None)  # a page fetched again is the newest
        cache[url] = (time.monotonic(), _copy(result))
        while len(cache) > CACHED_PAGES:
            del cache[next(iter(cache))]
    return result


async def _fetch(url: str, prompt: str | None, ctx: ToolContext, resolver: Resolver) -> ToolResult:
    import httpx2

    from agent_cli.ext.web.convert import convert
    from agent_cli.ext.web.http import Redirected, fetch_page

    web = ctx.settings.web
    deny = tuple(ctx.settings.permissions.deny)
    try:
        page = await fetch_page(url, web, resolver, deny)
    except httpx2.TimeoutException as e:
        raise TimeoutError(str(e)) from e
    except httpx2.HTTPError as e:
        raise WebRefused(f"Fetching {url} failed: {type(e).__name__}: {e}") from e
    if isinstance(page, Redirected):
        return ToolResult(
            f"{page.url} redirects ({page.status}) to another host: {page.location}\n"
            "It was not followed. To read it, call web_fetch again with that URL.",
            summary=f"web_fetch {url}: redirects to {domain_of(page.location)}",
        )
    converted = convert(page)
    label = converted.title or domain_of(page.url) or page.url
    content = _header(page, converted, prompt, ctx) + (converted.text or "(the page has no text)")
    display = PageDisplay(url=page.url, title=converted.title, bytes=len(page.body))
    if page.status >= 400:
        return ToolResult(content, True, f"web_fetch {label}: HTTP {page.status}", display)
    size = _size(len(page.body))
    return ToolResult(content, summary=f"web_fetch {label} ({size})", display=display)


def _header(page: Page, converted: Converted, prompt: str | None, ctx: ToolContext) -> str:
    """Title, address and size; a truncation note; passages about the prompt on a long page."""
    web = ctx.settings.web
    lines = [f"# {converted.title}" if converted.title else f"# {page.url}"]
    kind = page.content_type or "?"
    lines.append(f"URL: {page.url} (HTTP {page.status}, {kind}, {_size(len(page.body))})")
    if page.truncated:
        total = f" of {page.total_bytes:,}" if page.total_bytes else ""
        lines.append(
            f"[Truncated: only the first {web.max_bytes:,} bytes were read (web.max_bytes){total}.]"
        )
    if prompt and len(converted.text) > ctx.settings.tool_result_limit_chars:
        passages = relevant_passages(converted.text, prompt, ctx.settings.tool_preview_chars)
        if passages:
            lines.append(f"\n## Passages about: {prompt}\n\n{passages}\n\n## Page")
    return "\n".join(lines) + "\n\n"


def relevant_passages(text: str, prompt: str, budget: int) -> str:
    """The paragraphs that share the most words with the prompt, in page order, within budget."""
    words = {w.lower() for w in PASSAGE_WORDS.findall(prompt)}
    paragraphs = [p for p in text.split("\n\n") if p.strip()]
    scores = [(sum(w in p.lower() for w in words), i) for i, p in enumerate(paragraphs)]
    chosen: list[int] = []
    used = 0
    for score, index in sorted(scores, key=lambda s: (-s[0], s[1])):
        if score == 0:
            break
        if used + len(paragraphs[index]) <= budget:
            chosen.append(index)
            used += len(paragraphs[index])
    return "\n\n".join(paragraphs[i] for i in sorted(chosen))


def _copy(result: ToolResult, note: str = "") -> ToolResult:
    return ToolResult(result.content, result.is_error, result.summary + note, result.display)


def _size(n: int) -> str:
    for unit, scale in (("MB", 1_000_000), ("kB", 1_000)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"
