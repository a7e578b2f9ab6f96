"""web_fetch on a 1 MB HTML page from a local server, figures side by side in one run.

    python bench/web_fetch.py [--runs N] [--size BYTES] [--json]

Prints median, min and max seconds of: the HTTP fetch alone (address checks, pinned connection,
body read), the HTML -> Markdown conversion alone, the whole tool call (fetch, convert, result
budget: the Markdown saved to disk with a preview), and the same call again (from the session
cache). Targets are on medians. Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from common import Figure, report

from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.core.tool_contract import ToolContext
from agent_cli.ext.web import WebFetch
from agent_cli.ext.web.convert import html_to_markdown
from agent_cli.ext.web.http import Page, fetch_page
from agent_cli.tools.host_rules import system_resolver
from agent_cli.tools.registry import ToolRegistry
from tests.web_site import WebSite

SECTION = """<section id="s{i}"><h2>Release 0.{i}.0</h2>
<p>This release changes <code>Client.send</code> and the <a href="/docs/api#s{i}">transport
API</a>; see the <a href="https://example.org/issues/{i}">issue tracker</a> for details.
Text with <b>bold</b>, <i>italic</i> and an &amp; entity.</p>
<ul><li>Added <code>timeout={i}</code> support</li><li>Fixed a leak in the pool</li></ul>
<table><tr><th>name</th><th>value</th></tr><tr><td>retries</td><td>{i}</td></tr></table>
<pre><code>client = httpx.Client(timeout={i})
response = client.get("https://example.org/{i}")</code></pre></section>
"""
HEAD = """<!doctype html><html><head><title>Changelog - a 1 MB page</title>
<style>body {{ font-family: sans-serif }}</style><script>window.track = 1;</script></head>
<body><nav><a href="/">Home</a> <a href="/docs">Docs</a></nav><main><h1>Changelog</h1>
"""


def big_page(size: int) -> str:
    parts, i, total = [HEAD.format()], 0, len(HEAD)
    while total < size:
        section = SECTION.format(i=i)
        parts.append(section)
        total += len(section)
        i += 1
    return "".join(parts) + "</main></body></html>"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    html = big_page(args.size)
    settings = Settings.model_validate({"web": {"allow_private_hosts": True}})
    fetch_s, convert_s, call_s, cached_s = [], [], [], []
    with WebSite() as site, tempfile.TemporaryDirectory() as tmp:
        site.page("/changelog", html)
        url = site.url("/changelog")
        ctx = ToolContext(Path(tmp), Paths(Path(tmp)), "bench", settings)
        page: Page | None = None
        for run in range(args.runs):
            start = time.perf_counter()
            fetched = asyncio.run(fetch_page(url, settings.web, system_resolver))
            fetch_s.append(time.perf_counter() - start)
            assert isinstance(fetched, Page)
            page = fetched
            start = time.perf_counter()
            markdown = html_to_markdown(page.body, page.charset)
            convert_s.append(time.perf_counter() - start)
            registry = ToolRegistry([WebFetch()])  # a fresh session cache each run
            for into in (call_s, cached_s):
                start = time.perf_counter()
                result = asyncio.run(registry.dispatch("web_fetch", {"url": url}, ctx, f"r{run}"))
                into.append(time.perf_counter() - start)
                assert not result.is_error, result.content[:300]
    assert page is not None
    size_note = f"{len(page.body) / 1e6:.2f} MB HTML -> {len(markdown.text) / 1e6:.2f} MB Markdown"
    figures = [
        Figure.of(f"fetch only ({size_note})", fetch_s, "s", "< 0.5 s", median_below(fetch_s, 0.5)),
        Figure.of("HTML -> Markdown only", convert_s, "s", "< 1 s", median_below(convert_s, 1)),
        Figure.of("whole web_fetch call", call_s, "s", "< 1.5 s", median_below(call_s, 1.5)),
        Figure.of(
            "same call again (session cache)",
            cached_s,
            "s",
            "< 0.05 s",
            median_below(cached_s, 0.05),
        ),
    ]
    return report(figures, args.json)


def median_below(values: list[float], limit: float) -> bool:
    return statistics.median(values) < limit


if __name__ == "__main__":
    raise SystemExit(main())
