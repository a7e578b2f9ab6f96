"""What a sandboxed command may reach through the agent's proxy (SPEC §5, §12).

Through only when `sandbox.network.allowed_domains` lists the host (`host`, `host:port`,
`*.suffix`), never when `web.blocked_domains` covers it, and a loopback, private or link-local
address only when it is listed by address. The proxy connects to the very address checked here,
so a name that resolves elsewhere the next time (DNS rebinding) cannot slip through.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Literal

from agent_cli.core.settings.features import WebSettings
from agent_cli.core.settings.hosts import HostEntry, parse_host_entry
from agent_cli.tools.host_rules import Resolver, WebRefused, in_domains, is_public, system_resolver

SETTING = "sandbox.network.allowed_domains"


@dataclass(frozen=True)
class Verdict:
    kind: Literal["allow", "ask", "refuse"]
    address: str = ""  # allow: the address to connect to
    reason: str = ""  # refuse: what the model is told, naming what would allow it


def normal_host(host: str) -> str:
    """Lower case, IDNA-encoded, no brackets or trailing dot; ValueError when not a host."""
    host = host.strip().strip("[]").rstrip(".")
    if not host:
        raise ValueError("no host")
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return host.encode("idna").decode("ascii").lower()


def shown(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@dataclass
class HostRules:
    entries: list[HostEntry]
    web: WebSettings
    resolver: Resolver = system_resolver
    approved: list[HostEntry] = field(default_factory=list)  # this command's, or the user's

    @classmethod
    def of(
        cls, allowed: list[str], web: WebSettings, resolver: Resolver = system_resolver
    ) -> HostRules:
        return cls([parse_host_entry(item) for item in allowed], web, resolver)

    def allow(self, host: str, port: int) -> None:
        self.approved.append(HostEntry(host, port))

    def listed(self, host: str, port: int) -> bool:
        return any(e.covers(host, port) for e in [*self.entries, *self.approved])

    def listed_by_address(self, address: str, port: int) -> bool:
        return any(
            e.is_address() and e.covers(address, port) for e in [*self.entries, *self.approved]
        )

    async def check(self, host: str, port: int) -> Verdict:
        """`host` as `normal_host` gives it."""
        where = shown(host, port)
        blocked = in_domains(host, self.web.blocked_domains)
        if blocked:
            return Verdict(
                "refuse", reason=f"{where} is blocked by web.blocked_domains ({blocked})"
            )
        if not self.listed(host, port):
            return Verdict("ask", reason=self._unlisted(host, port))  # not resolved: not needed
        try:
            addresses = [host] if _is_address(host) else await self.resolver(host, port)
        except WebRefused as e:
            return Verdict("refuse", reason=str(e).rstrip("."))
        if not addresses:
            return Verdict("refuse", reason=f"{host} resolves to no address")
        private = [a for a in addresses if not is_public(a)]
        unlisted = [a for a in private if not self.listed_by_address(a, port)]
        if unlisted:
            return Verdict("refuse", reason=self._private(where, unlisted[0], port))
        return Verdict("allow", address=addresses[0])

    def _unlisted(self, host: str, port: int) -> str:
        entry = shown(host, port)
        plain = host if not _is_address(host) else None
        wider = f' (or "{plain}" for any port)' if plain else ""
        return f'{entry} is not in {SETTING}; add "{entry}"{wider} there to allow it'

    def _private(self, where: str, address: str, port: int) -> str:
        entry = shown(address, port)
        return (
            f"{where} resolves to {address}, a loopback, private or link-local address; such "
            f'addresses go through only when {SETTING} lists them by address (add "{entry}")'
        )
