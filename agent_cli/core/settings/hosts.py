"""An entry of `sandbox.network.allowed_domains`: `host`, `host:port`, `*.suffix` (any of them
with `:port`), an IPv4 address or a bracketed IPv6 one (`[::1]:8080`)."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

_NAME = re.compile(
    r"^(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$"
)


@dataclass(frozen=True)
class HostEntry:
    host: str  # lower case, no brackets; for a wildcard the suffix without "*."
    port: int | None = None  # None: any port
    wildcard: bool = False  # `*.suffix`: its subdomains, not the suffix itself

    def covers(self, host: str, port: int) -> bool:
        if self.port is not None and self.port != port:
            return False
        if self.wildcard:
            return host.endswith("." + self.host)
        return host == self.host

    def is_address(self) -> bool:
        try:
            ipaddress.ip_address(self.host)
        except ValueError:
            return False
        return True

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        host = f"*.{host}" if self.wildcard else host
        return host if self.port is None else f"{host}:{self.port}"


def _split_port(text: str) -> tuple[str, str | None]:
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            raise ValueError("an IPv6 address is written [addr] or [addr]:port")
        return host, rest[1:] if rest else None
    if text.count(":") > 1:
        raise ValueError("write an IPv6 address in brackets: [addr] or [addr]:port")
    host, sep, port = text.partition(":")
    return host, port if sep else None


def parse_host_entry(text: str) -> HostEntry:
    """ValueError naming what is wrong with `text`."""
    try:
        host, port_text = _split_port(text.strip().lower())
    except ValueError as e:
        raise ValueError(f"{text!r}: {e}") from e
    port = None
    if port_text is not None:
        if not port_text.isdigit() or not 0 < int(port_text) < 65_536:
            raise ValueError(f"{text!r}: the port must be a number from 1 to 65535")
        port = int(port_text)
    host = host.rstrip(".")
    try:
        return HostEntry(str(ipaddress.ip_address(host)), port)
    except ValueError:
        pass
    if not _NAME.match(host):
        raise ValueError(f"{text!r} is not a host, host:port or *.suffix (e.g. pypi.org:443)")
    if host.startswith("*."):
        return HostEntry(host[2:], port, wildcard=True)
    return HostEntry(host, port)
