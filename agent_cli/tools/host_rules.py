"""What `web_fetch` may reach: schemes, domains, addresses and URLs that carry no secret.

Addresses are checked after DNS resolution, and the fetch connects to the very address that was
checked, so a name that resolves to a public address once and to 127.0.0.1 the next time (DNS
rebinding) cannot slip through. Every redirect hop goes through the same checks.
"""

from __future__ import annotations

import asyncio
import fnmatch
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from agent_cli.core.settings.features import WebSettings

Resolver = Callable[[str, int], Awaitable[list[str]]]

# query keys whose value is a credential, and values shaped like well-known tokens
_SECRET_KEYS = re.compile(
    r"(^|[_-])(api[_-]?key|apikey|access[_-]?token|auth|token|secret|password|passwd|pwd|"
    r"signature|sig|session|credential|private[_-]?key|client[_-]?secret)($|[_-])",
    re.IGNORECASE,
)
_SECRET_VALUES = re.compile(
    r"(sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|"
    r"AKIA[0-9A-Z]{16}|xox[abposr]-[A-Za-z0-9-]{10,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})"
)


class WebRefused(Exception):
    """The URL may not be fetched; the message tells the model why and what would allow it."""


@dataclass(frozen=True)
class Target:
    url: str
    scheme: str
    host: str  # lower case, IDNA-encoded, no brackets
    port: int


def parse_target(url: str) -> Target:
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as e:
        raise WebRefused(f"Not a valid URL: {url!r} ({e}).") from e
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        shown = scheme or "no scheme"
        raise WebRefused(f"Only http and https URLs can be fetched, not {shown}: {url!r}.")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise WebRefused(f"The URL has no host: {url!r}.")
    try:
        host = host.encode("idna").decode("ascii").lower()
    except UnicodeError as e:
        raise WebRefused(f"The host of {url!r} is not a valid domain name.") from e
    default_port = 443 if scheme == "https" else 80
    return Target(url.strip(), scheme, host, port or default_port)


def domain_of(url: str) -> str:
    """The host the permission rules name (`web_fetch(domain:<host>)`); "" for a bad URL."""
    try:
        return parse_target(url).host
    except WebRefused:
        return ""


def in_domains(host: str, domains: Iterable[str]) -> str | None:
    """The listed domain that covers `host` (itself or a parent domain), if any."""
    for domain in domains:
        if host == domain or host.endswith("." + domain):
            return domain
    return None


def check_url(url: str, web: WebSettings, deny_patterns: Iterable[str] = ()) -> Target:
    """Everything that can be decided before DNS: scheme, credentials, domain rules."""
    target = parse_target(url)
    if not web.allow_credential_urls:
        _refuse_credentials(url)
    blocked = in_domains(target.host, web.blocked_domains)
    if blocked:
        raise WebRefused(f"{target.host} is blocked by web.blocked_domains ({blocked}).")
    if web.allowed_domains and not in_domains(target.host, web.allowed_domains):
        listed = ", ".join(web.allowed_domains)
        raise WebRefused(f"{target.host} is not in web.allowed_domains ({listed}).")
    for pattern in deny_patterns:
        if pattern.startswith("web_fetch(") and pattern.endswith(")"):
            glob = pattern[len("web_fetch(") : -1]
            if fnmatch.fnmatchcase(f"domain:{target.host}", glob):
                raise WebRefused(f"{target.host} is refused by the permissions.deny {pattern!r}.")
    return target


def _refuse_credentials(url: str) -> None:
    parts = urlsplit(url)
    hint = "Set web.allow_credential_urls to allow it."
    if parts.username or parts.password:
        raise WebRefused(f"The URL carries a user name or password; it is not sent. {hint}")
    for key, value in parse_qsl(parts.query, keep_blank_values=False):
        if value and _SECRET_KEYS.search(key):
            raise WebRefused(
                f"The URL's query parameter {key!r} looks like a credential; it is not sent. {hint}"
            )
    if _SECRET_VALUES.search(url):
        raise WebRefused(f"The URL holds what looks like an access token; it is not sent. {hint}")


def is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


async def system_resolver(host: str, port: int) -> list[str]:
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise WebRefused(f"Cannot resolve {host}: {e.strerror or e}.") from e
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


async def checked_address(target: Target, web: WebSettings, resolver: Resolver) -> str:
    """The one address to connect to: every address the name resolves to must be allowed."""
    try:
        addresses = [str(ipaddress.ip_address(target.host))]
    except ValueError:
        addresses = await resolver(target.host, target.port)
    if not addresses:
        raise WebRefused(f"{target.host} resolves to no address.")
    if not web.allow_private_hosts:
        for address in addresses:
            if not is_public(address):
                raise WebRefused(
                    f"{target.host} resolves to {address}, a loopback, private or link-local "
                    "address; such hosts are refused unless web.allow_private_hosts is set."
                )
    return addresses[0]
