"""One page over HTTP: the checked address pinned, redirects re-checked hop by hop, a size cap.

The request goes to the IP address that `web_rules.checked_address` approved; the host name
travels in the Host header and as the TLS server name, so certificates are still verified
against the name. The client reads no environment (no proxies, no .netrc) and sends no
credentials of its own: the API key never leaves for a fetched host.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from agent_cli.core.settings.features import WebSettings
from agent_cli.tools.host_rules import Resolver, Target, WebRefused, check_url, checked_address

if TYPE_CHECKING:
    import httpx2

USER_AGENT = "agent-cli/0.1 (web_fetch)"
ACCEPT = "text/html, text/markdown, text/plain, application/json, application/pdf;q=0.9, */*;q=0.5"
REDIRECTS = (301, 302, 303, 307, 308)


@dataclass
class Page:
    url: str  # after same-host redirects
    status: int
    content_type: str  # lower case, without parameters
    charset: str | None
    body: bytes
    total_bytes: int | None  # the announced length, when the server gave one
    truncated: bool


@dataclass
class Redirected:
    """A redirect to another host: not followed, the model decides (and the gate asks again)."""

    url: str
    location: str
    status: int


def same_site(a: str, b: str) -> bool:
    return a.removeprefix("www.") == b.removeprefix("www.")


async def fetch_page(
    url: str, web: WebSettings, resolver: Resolver, deny_patterns: tuple[str, ...] = ()
) -> Page | Redirected:
    import httpx2

    timeout = httpx2.Timeout(web.timeout_s)  # each connect and read; the whole fetch as well
    async with (
        asyncio.timeout(web.timeout_s),
        httpx2.AsyncClient(timeout=timeout, trust_env=False, follow_redirects=False) as client,
    ):
        first = check_url(url, web, deny_patterns)
        target = first
        for _hop in range(web.max_redirects + 1):
            address = await checked_address(target, web, resolver)
            request = _pinned_request(client, target, address)
            response = await client.send(request, stream=True)
            try:
                location = response.headers.get("location")
                if response.status_code in REDIRECTS and location:
                    next_url = urljoin(target.url, location)
                    target = check_url(next_url, web, deny_patterns)  # refused: a WebRefused
                    if not same_site(target.host, first.host):
                        return Redirected(url, next_url, response.status_code)
                    continue
                return await _read(response, target.url, web.max_bytes)
            finally:
                await response.aclose()
    raise WebRefused(f"More than {web.max_redirects} redirects (web.max_redirects) from {url}.")


def _pinned_request(client: httpx2.AsyncClient, target: Target, address: str) -> httpx2.Request:
    import httpx2

    url = httpx2.URL(target.url)
    host = f"[{target.host}]" if ":" in target.host else target.host  # an IPv6 literal
    host_header = host if url.port is None else f"{host}:{url.port}"
    pinned = url.copy_with(host=address)
    headers = {"Host": host_header, "User-Agent": USER_AGENT, "Accept": ACCEPT}
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    return client.build_request("GET", pinned, headers=headers, extensions=extensions)


async def _read(response: httpx2.Response, url: str, max_bytes: int) -> Page:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:  # one byte past the cap proves there is more: stop reading
            break
    content_type, _, params = response.headers.get("content-type", "").partition(";")
    announced = response.headers.get("content-length")
    return Page(
        url=url,
        status=response.status_code,
        content_type=content_type.strip().lower(),
        charset=_charset(params),
        body=b"".join(chunks)[:max_bytes],
        total_bytes=int(announced) if announced and announced.isdigit() else None,
        truncated=size > max_bytes,
    )


def _charset(params: str) -> str | None:
    for part in params.split(";"):
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset" and value:
            return value.strip("\"' ")
    return None
