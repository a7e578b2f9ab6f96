"""web_fetch against a real website on 127.0.0.1 (reachable only with web.allow_private_hosts)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.payloads import PageDisplay
from agent_cli.core.settings.schema import Settings
from agent_cli.core.tool_contract import ToolContext, ToolResult
from agent_cli.ext.web import WebFetch
from agent_cli.policy.approval import Approver, HeadlessApprover
from agent_cli.policy.gate import PolicyGate
from agent_cli.policy.hooks import Hooks
from agent_cli.policy.permissions import Permissions
from agent_cli.tools.registry import ToolRegistry
from tests.unit.tool_helpers import ScriptedApprover, make_ctx
from tests.web_site import WebSite

API_KEY = "sk-" + "ant-test-" + "s" * 40  # split: no real-looking key literal in the tree
DOCS = """<!doctype html><html><head><title>httpx changelog</title>
<style>body { color: red }</style><script>var secret = 1;</script></head>
<body><nav><a href="/">Home</a></nav>
<h1>Changelog</h1><h2>0.28.0</h2>
<p>The <code>verify</code> argument now takes an <a href="https://www.python-httpx.org/ssl">SSL
context</a>.</p><ul><li>Dropped <b>proxies</b></li><li>Added <i>zstd</i></li></ul>
</body></html>"""


@pytest.fixture
def site() -> Iterator[WebSite]:
    with WebSite() as running:
        yield running


def settings(**web: Any) -> Settings:
    return Settings.model_validate({"web": {"allow_private_hosts": True, **web}})


def fetch(ctx: ToolContext, registry: ToolRegistry | None = None, **args: Any) -> ToolResult:
    registry = registry or ToolRegistry([WebFetch()])
    return asyncio.run(registry.dispatch("web_fetch", args, ctx, call_id="toolu_web"))


def gated(ctx: ToolContext, mode: str, approver: Approver, **perms: Any) -> ToolRegistry:
    ctx.settings = ctx.settings.model_copy(
        update={
            "permissions": Settings.model_validate(
                {"permissions": {"mode": mode, **perms}}
            ).permissions
        }
    )
    permissions = Permissions(ctx.settings.permissions, approver)
    hooks = Hooks(ctx.settings.hooks, ctx.session_id, ctx.workspace)
    return ToolRegistry([WebFetch()], PolicyGate(permissions, hooks))


def test_an_html_page_comes_back_as_markdown_with_its_links(tmp_path: Path, site: WebSite):
    site.page("/changelog", DOCS)
    result = fetch(make_ctx(tmp_path, settings()), url=site.url("/changelog"))
    assert not result.is_error, result.content
    size = len(DOCS.encode())
    assert result.content == (
        f"# httpx changelog\nURL: {site.url('/changelog')} (HTTP 200, text/html, {size} B)\n\n"
        "# Changelog\n\n## 0.28.0\n\n"
        "The `verify` argument now takes an [SSL context](https://www.python-httpx.org/ssl).\n\n"
        "- Dropped **proxies**\n- Added *zstd*"
    )  # no script, no style, no navigation bar
    assert result.summary == f"web_fetch httpx changelog ({len(DOCS.encode())} B)"
    assert result.display == PageDisplay(
        url=site.url("/changelog"), title="httpx changelog", bytes=len(DOCS.encode())
    )


def test_a_50_mb_body_is_capped_and_the_text_saved_with_a_preview(tmp_path: Path, site: WebSite):
    total = 50_000_000
    site.stream("/huge.txt", total)
    ctx = make_ctx(tmp_path, settings())
    result = fetch(ctx, url=site.url("/huge.txt"))
    cap = ctx.settings.web.max_bytes
    assert not result.is_error, result.content[:500]
    assert (
        f"[Truncated: only the first {cap:,} bytes were read (web.max_bytes) of {total:,}.]"
        in result.content
    )
    saved = ctx.paths.tool_results(ctx.session_id) / "toolu_web.txt"
    assert f"the whole output is saved at {saved}" in result.content
    assert len(result.content) < 5_000
    assert cap < saved.stat().st_size < cap + 1_000
    assert site.streamed_bytes < total // 2  # the client stopped reading, it did not drain 50 MB


def test_a_redirect_to_a_blocked_domain_is_refused(tmp_path: Path, site: WebSite):
    site.redirect("/moved", "http://tracker.blocked.example/pixel")
    ctx = make_ctx(tmp_path, settings(blocked_domains=["blocked.example"]))
    result = fetch(ctx, url=site.url("/moved"))
    assert result.is_error
    assert (
        "tracker.blocked.example is blocked by web.blocked_domains (blocked.example)"
        in result.content
    )


def test_a_redirect_to_a_domain_denied_by_a_permission_rule_is_refused(
    tmp_path: Path, site: WebSite
):
    site.redirect("/moved", "https://evil.example/collect")
    ctx = make_ctx(tmp_path, settings())
    registry = gated(ctx, "bypass", HeadlessApprover(), deny=["web_fetch(domain:evil.example)"])
    result = fetch(ctx, registry, url=site.url("/moved"))
    assert result.is_error
    assert (
        "evil.example is refused by the permissions.deny 'web_fetch(domain:evil.example)'"
        in result.content
    )


def test_a_redirect_to_another_host_is_handed_back_not_followed(tmp_path: Path, site: WebSite):
    site.redirect("/moved", "https://docs.example.org/new")
    result = fetch(make_ctx(tmp_path, settings()), url=site.url("/moved"))
    assert not result.is_error
    assert "redirects (302) to another host: https://docs.example.org/new" in result.content
    assert site.paths() == ["/moved"]


def test_a_redirect_on_the_same_host_is_followed_and_checked_again(tmp_path: Path, site: WebSite):
    site.redirect("/old", "/changelog", status=301)
    site.page("/changelog", DOCS)
    result = fetch(make_ctx(tmp_path, settings()), url=site.url("/old"))
    assert "# Changelog" in result.content
    assert site.paths() == ["/old", "/changelog"]
    site.redirect("/loop", "/loop")
    looped = fetch(make_ctx(tmp_path, settings(max_redirects=3)), url=site.url("/loop"))
    assert looped.is_error
    assert "More than 3 redirects" in looped.content


def test_a_private_address_is_refused_without_the_setting(tmp_path: Path, site: WebSite):
    site.page("/changelog", DOCS)
    result = fetch(make_ctx(tmp_path, Settings()), url=site.url("/changelog"))
    assert result.is_error
    assert "resolves to 127.0.0.1, a loopback, private or link-local address" in result.content
    assert "web.allow_private_hosts" in result.content
    assert site.requests == []


@pytest.mark.parametrize(
    "url",
    [
        "http://[::1]:9/",
        "http://0x7f000001/",
        "http://2130706433/",
        "http://127.1/",
        "http://[::ffff:10.0.0.1]/",
        "http://localhost./",
    ],
)
def test_loopback_and_private_literals_are_refused(tmp_path: Path, url: str):
    result = fetch(make_ctx(tmp_path, Settings()), url=url)
    assert result.is_error
    assert "a loopback, private or link-local address" in result.content, result.content


@pytest.mark.parametrize(
    "addresses",
    [
        ["10.0.0.7"],
        ["169.254.169.254"],
        ["93.184.215.14", "127.0.0.1"],
        ["::1"],
        ["::ffff:127.0.0.1"],
        ["fd00::1"],
        ["100.64.0.1"],
    ],
)
def test_a_name_resolving_to_any_private_address_is_refused(tmp_path: Path, addresses: list[str]):
    async def resolver(host: str, port: int) -> list[str]:
        return addresses

    registry = ToolRegistry([WebFetch(resolver=resolver)])
    result = fetch(make_ctx(tmp_path, Settings()), registry, url="https://intranet.example/")
    assert result.is_error
    assert "a loopback, private or link-local address" in result.content


def test_the_fetch_connects_to_the_address_that_was_checked(tmp_path: Path, site: WebSite):
    """Against DNS rebinding: the name is resolved once per hop, and that address is used."""
    lookups: list[str] = []

    async def resolver(host: str, port: int) -> list[str]:
        lookups.append(host)
        return ["127.0.0.1"]

    site.redirect("/old", "/changelog")
    site.page("/changelog", DOCS)
    registry = ToolRegistry([WebFetch(resolver=resolver)])
    url = f"http://docs.rebind.test:{site.port}/old"
    result = fetch(make_ctx(tmp_path, settings()), registry, url=url)
    assert "# Changelog" in result.content, result.content
    assert lookups == ["docs.rebind.test", "docs.rebind.test"]  # one per hop
    assert [h["host"] for _, h in site.requests] == [f"docs.rebind.test:{site.port}"] * 2


def test_the_domain_question_is_asked_once_and_remembered(tmp_path: Path, site: WebSite):
    site.page("/a", DOCS)
    site.page("/b", DOCS)
    ctx = make_ctx(tmp_path, settings())
    approver = ScriptedApprover("always")
    registry = gated(ctx, "default", approver)
    assert not fetch(ctx, registry, url=site.url("/a")).is_error
    assert not fetch(ctx, registry, url=site.url("/b")).is_error
    assert [(r.tool, r.summary, r.pattern) for r in approver.asked] == [
        ("web_fetch", f"web_fetch {site.url('/a')}", "web_fetch(domain:127.0.0.1)")
    ]
    fetch(ctx, registry, url=site.url("/a", host="localhost"))  # another domain: asked again
    assert [r.pattern for r in approver.asked][1:] == ["web_fetch(domain:localhost)"]


def test_headless_denies_and_names_the_rule_that_allows(tmp_path: Path, site: WebSite):
    site.page("/a", DOCS)
    ctx = make_ctx(tmp_path, settings())
    result = fetch(ctx, gated(ctx, "default", HeadlessApprover()), url=site.url("/a"))
    assert result.is_error
    assert '"web_fetch(domain:127.0.0.1)" to permissions.allow' in result.content
    assert site.requests == []
    allowed = gated(ctx, "default", HeadlessApprover(), allow=["web_fetch(domain:127.0.0.1)"])
    assert not fetch(ctx, allowed, url=site.url("/a")).is_error


def test_plan_mode_allows_it_and_accept_edits_asks(tmp_path: Path, site: WebSite):
    site.page("/a", DOCS)
    ctx = make_ctx(tmp_path, settings())
    approver = ScriptedApprover("deny")
    result = fetch(ctx, gated(ctx, "plan", approver), url=site.url("/a"))
    assert not result.is_error, result.content
    assert approver.asked == []
    denied = fetch(ctx, gated(ctx, "accept-edits", approver), url=site.url("/a"))
    assert denied.is_error
    assert [r.pattern for r in approver.asked] == ["web_fetch(domain:127.0.0.1)"]
    blocked = gated(ctx, "plan", approver, deny=["web_fetch(domain:127.0.0.1)"])
    assert fetch(ctx, blocked, url=site.url("/a")).is_error  # deny rules hold in plan mode


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("file:///etc/passwd", "Only http and https URLs can be fetched, not file"),
        ("ftp://example.com/x", "not ftp"),
        ("https://user:hunter2@example.com/", "carries a user name or password"),
        ("https://example.com/?api_key=abc123", "parameter 'api_key' looks like a credential"),
        ("https://example.com/?access_token=abc", "'access_token' looks like a credential"),
        ("https://example.com/p/" + API_KEY, "looks like an access token"),
        ("https://example.com/?x=ghp_" + "a" * 36, "looks like an access token"),
    ],
)
def test_refused_urls_are_never_requested(tmp_path: Path, url: str, says: str):
    async def resolver(host: str, port: int) -> list[str]:
        raise AssertionError("a refused URL must not even be resolved")

    registry = ToolRegistry([WebFetch(resolver=resolver)])
    result = fetch(make_ctx(tmp_path, settings()), registry, url=url)
    assert result.is_error
    assert says in result.content


def test_no_header_carries_the_api_key_to_the_fetched_host(
    tmp_path: Path, site: WebSite, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", API_KEY)
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9/")  # ignored: the client reads no env
    site.page("/a", DOCS)
    assert not fetch(make_ctx(tmp_path, settings()), url=site.url("/a")).is_error
    ((_path, headers),) = site.requests
    assert "authorization" not in headers
    assert "x-api-key" not in headers
    assert not any(API_KEY in value for value in headers.values())


def test_the_agents_own_key_in_a_url_is_refused_even_when_credential_urls_are_allowed(
    tmp_path: Path, site: WebSite
):
    ctx = make_ctx(tmp_path, settings(allow_credential_urls=True))
    ctx.secrets = (API_KEY,)
    result = fetch(ctx, url=site.url("/a?k=" + API_KEY))
    assert result.is_error
    assert "contains the agent's own API key" in result.content
    assert API_KEY not in result.content + result.summary
    assert site.requests == []


def test_a_server_that_hangs_is_a_timeout_result(tmp_path: Path, site: WebSite):
    release = threading.Event()
    site.stalled("/slow", release)
    try:
        result = fetch(make_ctx(tmp_path, settings(timeout_s=0.3)), url=site.url("/slow"))
    finally:
        release.set()
    assert result.is_error
    assert result.content == f"Fetching {site.url('/slow')} took longer than 0.3 s (web.timeout_s)."


def test_a_page_fetched_again_comes_from_the_session_cache(tmp_path: Path, site: WebSite):
    site.page("/a", DOCS)
    ctx = make_ctx(tmp_path, settings())
    registry = ToolRegistry([WebFetch()])
    first = fetch(ctx, registry, url=site.url("/a"))
    again = fetch(ctx, registry, url=site.url("/a"))
    assert again.content == first.content
    assert again.summary.endswith("(cached)")
    assert site.paths() == ["/a"]
    fresh = make_ctx(tmp_path, settings(cache_ttl_s=0))
    fetch(fresh, registry, url=site.url("/a"))
    assert site.paths() == ["/a", "/a"]


def test_json_is_pretty_printed_and_errors_are_results(tmp_path: Path, site: WebSite):
    site.page("/v.json", json.dumps({"version": "0.28.1", "yanked": False}), "application/json")
    site.page("/gone", "<html><title>Gone</title><p>no such page</p></html>", status=404)
    site.page("/img", b"\x89PNG\r\n", "image/png")
    ctx = make_ctx(tmp_path, settings())
    data = fetch(ctx, url=site.url("/v.json"))
    assert '{\n  "version": "0.28.1",\n  "yanked": false\n}' in data.content
    gone = fetch(ctx, url=site.url("/gone"))
    assert gone.is_error
    assert gone.summary == "web_fetch Gone: HTTP 404"
    assert "no such page" in gone.content
    image = fetch(ctx, url=site.url("/img"))
    assert image.is_error
    assert "is image/png: web_fetch reads text, HTML, JSON and PDF" in image.content


def test_a_long_page_with_a_prompt_puts_the_matching_passages_first(tmp_path: Path, site: WebSite):
    filler = "".join(f"<p>Unrelated paragraph {i} about gardening.</p>" for i in range(2_000))
    body = f"<html><body>{filler}<p>Proxy support was removed in 0.28.</p>{filler}</body></html>"
    site.page("/long", body)
    ctx = make_ctx(tmp_path, settings())
    result = fetch(ctx, url=site.url("/long"), prompt="what happened to proxy support")
    head = result.content[: ctx.settings.tool_preview_chars]
    assert "## Passages about: what happened to proxy support" in head
    assert "Proxy support was removed in 0.28." in head


def tiny_pdf(text: str) -> bytes:
    """A one-page PDF showing `text`, written out by hand (objects, xref table, trailer)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return out


def test_a_pdf_comes_back_as_its_text(tmp_path: Path, site: WebSite):
    site.page("/notes.pdf", tiny_pdf("Release notes for 0.28"), "application/pdf")
    site.page("/broken.pdf", b"%PDF-1.4 not really", "application/pdf")
    ctx = make_ctx(tmp_path, settings())
    result = fetch(ctx, url=site.url("/notes.pdf"))
    assert not result.is_error, result.content
    assert "--- page 1 ---\nRelease notes for 0.28" in result.content
    broken = fetch(ctx, url=site.url("/broken.pdf"))
    assert broken.is_error
    assert "The PDF could not be read" in broken.content


def test_the_session_cache_keeps_the_newest_pages_only(tmp_path: Path, site: WebSite):
    from agent_cli.ext.web.fetch import CACHED_PAGES

    ctx = make_ctx(tmp_path, settings())
    registry = ToolRegistry([WebFetch()])
    for i in range(CACHED_PAGES + 1):
        site.page(f"/p{i}", f"<p>page {i}</p>")
        fetch(ctx, registry, url=site.url(f"/p{i}"))
    fetch(ctx, registry, url=site.url(f"/p{CACHED_PAGES}"))  # the newest: cached
    fetch(ctx, registry, url=site.url("/p0"))  # the oldest was dropped: fetched again
    assert site.paths()[CACHED_PAGES + 1 :] == ["/p0"]


def test_an_interrupted_fetch_stops_at_once(tmp_path: Path, site: WebSite):
    release = threading.Event()
    site.stalled("/slow", release)
    ctx = make_ctx(tmp_path, settings())

    async def interrupt() -> None:
        registry = ToolRegistry([WebFetch()])
        task = asyncio.ensure_future(
            registry.dispatch("web_fetch", {"url": site.url("/slow")}, ctx, call_id="t")
        )
        while not site.requests:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(interrupt())
    finally:
        release.set()
