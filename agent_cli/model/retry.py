"""When to send a model request again, after how long, and how a failure reads to the user.

The SDK's own retries are off (`max_retries=0` on the client): retrying here lets the user see
each one (`529 overloaded: retrying in 2 s (1/4)`) and lets a connection that never opened fail
with its endpoint and cause instead of a generic "Connection error." after every back-off.
A wait the server asks for (`retry-after-ms`, `retry-after`, read by the SDK's own parser) is
honoured exactly, up to `max_retry_wait_s`; a longer one ends the call with one line instead of
trying early. A stream silent for `stream_idle_timeout_s` (httpx's read timeout: the gap between
bytes, and the API sends pings) is asked again at once, counted as a retry.
"""

from __future__ import annotations

import socket
import ssl

import anthropic
import httpx2

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
MAX_DELAY_S = 8.0
HINT = "check ANTHROPIC_BASE_URL and the network"


def delay_s(attempt: int, asked_s: float | None) -> float:
    """The wait the server asked for, exactly; else 0.5 s doubling per attempt, up to 8 s."""
    if asked_s is not None and asked_s > 0:
        return asked_s
    return min(0.5 * float(2 ** max(attempt - 1, 0)), MAX_DELAY_S)


def too_long(reason: str, wait_s: float, max_wait_s: float) -> str:
    return (
        f"{reason}: the server asks to wait {wait_s:g} s, longer than max_retry_wait_s "
        f"({max_wait_s:g} s); try again later or raise max_retry_wait_s."
    )


def silent(e: BaseException) -> bool:
    """The read timeout fired: no byte for `stream_idle_timeout_s`, before or inside the reply."""
    return any(isinstance(c, httpx2.ReadTimeout) for c in _chain(e))


def retryable_status(e: anthropic.APIStatusError) -> bool:
    should = e.response.headers.get("x-should-retry")
    if should in ("true", "false"):
        return should == "true"
    return e.status_code in RETRY_STATUSES


def status_reason(e: anthropic.APIStatusError) -> str:
    kind = (e.type or "error").replace("_error", "").replace("_", " ")
    return f"{e.status_code} {kind}"


def connection_cause(e: BaseException) -> str:
    """refused, DNS, TLS, timeout, or the transport's own words."""
    chain = _chain(e)
    text = " ".join(str(c) for c in chain).lower()
    if any(isinstance(c, (anthropic.APITimeoutError, httpx2.TimeoutException)) for c in chain):
        return "timed out"
    if any(isinstance(c, ConnectionRefusedError) for c in chain) or "refused" in text:
        return "connection refused"
    if any(isinstance(c, ssl.SSLError) for c in chain) or "ssl" in text or "certificate" in text:
        return "TLS handshake failed"
    dns_words = ("name or service", "nodename", "getaddrinfo", "name resolution")
    if any(isinstance(c, socket.gaierror) for c in chain) or any(w in text for w in dns_words):
        return "DNS lookup failed (unknown host)"
    root = _root_cause(e)
    return f"{type(root).__name__}: {root}"[:200]


def connection_message(endpoint: str, cause: str, attempts: int) -> str:
    tries = "once" if attempts == 1 else f"{attempts} times"
    return f"Cannot reach the model at {endpoint}: {cause} (tried {tries}; {HINT})."


def _chain(e: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = e
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _root_cause(e: BaseException) -> BaseException:
    """The last exception raised, following `raise ... from` links only: an implicit context is
    what was being handled when it went wrong (anyio's `KeyError: 'asyncio'` while importing its
    backend hid the import's own error)."""
    seen: list[BaseException] = [e]
    while e.__cause__ is not None and e.__cause__ not in seen:
        e = e.__cause__
        seen.append(e)
    return e
