"""`web_fetch`: one web page as readable text, through the same result budget as every tool.

Permissions (asked per domain) are the gate's; this module refuses what no answer may allow:
other schemes, blocked domains, private addresses, URLs that carry a credential. A page fetched
again within `web.cache_ttl_s` comes from the session's cache.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import Field

from agent_cli.core.payloads import PageDisplay
from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult
from agent_cli.tools.host_rules import Resolver, WebRefused, domain_of, system_resolver

if TYPE_CHECKING:
    from agent_cli.ext.web.convert import Converted
    from agent_cli.ext.web.http import Page

PASSAGE_WORDS = re.compile(r"\w{3,}")
CACHED_PAGES = 32  # pages kept per session; the oldest goes first


class WebFetchInput(ToolInput):
    url: str = Field(min_length=1, max_length=4_000, description="The http(s) URL to fetch.")
    prompt: str | None = Field(
        default=None,
        max_length=1_000,
        description="What you are looking for on the page; passages about it come first "
        "when the page is too long to show whole.",
    )


@dataclass
class _Cached:
    at: float
    result: ToolResult


class WebFetch(Tool[WebFetchInput]):
    name = "web_fetch"
    input_model = WebFetchInput
    read_only = True

    def __init__(self, resolver: Resolver = system_resolver) -> None:
        self.resolver = resolver  # tests give names their own addresses
        self._cache: dict[str, _Cached] = {}  # url -> the result, for this session

    def describe_call(self, args: WebFetchInput) -> str:
        return f"web_fetch {args.url}"

    async def run(self, args: WebFetchInput, ctx: ToolContext) -> ToolResult:
        web = ctx.settings.web
        if any(secret and secret in args.url for secret in ctx.secrets):
            refusal = "The URL contains the agent's own API key; it is never sent, in any mode."
            return ToolResult(refusal, is_error=True, summary="web_fetch: refused (API key)")
        cached = self._cache.get(args.url)
        if cached is not None and time.monotonic() - cached.at < web.cache_ttl_s:
            return _copy(cached.result, " (cached)")
        try:
            result = await self._fetch(args, ctx)
        except WebRefused as e:
            return ToolResult(str(e), is_error=True, summary=f"web_fetch {args.url}: refused")
        except TimeoutError:
            message = f"Fetching {args.url} took longer than {web.timeout_s:g} s (web.timeout_s)."
            return ToolResult(message, is_error=True, summary=f"web_fetch {args.url}: timed out")
        if not result.is_error:
            self._cache.pop(args.url, None)  # a page fetched again is the newest
            self._cache[args.url] = _Cached(time.monotonic(), _copy(result))
            while len(self._cache) > CACHED_PAGES:
                del self._cache[next(iter(self._cache))]
        return result

    async def _fetch(self, args: WebFetchInput, ctx: ToolContext) -> ToolResult:
        import httpx2

        from agent_cli.ext.web.convert import convert
        from agent_cli.ext.web.http import Redirected, fetch_page

        web = ctx.settings.web
        deny = tuple(ctx.settings.permissions.deny)
        try:
            page = await fetch_page(args.url, web, self.resolver, deny)
        except httpx2.TimeoutException as e:
            raise TimeoutError(str(e)) from e
        except httpx2.HTTPError as e:
            raise WebRefused(f"Fetching {args.url} failed: {type(e).__name__}: {e}") from e
        if isinstance(page, Redirected):
            return ToolResult(
                f"{page.url} redirects ({page.status}) to another host: {page.location}\n"
                "It was not followed. To read it, call web_fetch again with that URL.",
                summary=f"web_fetch {args.url}: redirects to {domain_of(page.location)}",
            )
        converted = convert(page)
        label = converted.title or domain_of(page.url) or page.url
        content = _header(page, converted, args.prompt, ctx) + (
            converted.text or "(the page has no text)"
        )
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
