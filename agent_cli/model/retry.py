"""When to send a model request again, after how long, and how a failure reads to the user.

The SDK's own retries are off (`max_retries=0` on the client): retrying here lets the user see
each one (`529 overloaded: retrying in 2 s (1/4)`) and lets a connection that never opened fail
with its endpoint and cause instead of a generic "Connection error." after every back-off.
"""

from __future__ import annotations

import socket
import ssl

import anthropic
import httpx2

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
MAX_DELAY_S = 8.0
HINT = "check ANTHROPIC_BASE_URL and the network"


def delay_s(attempt: int, retry_after: str | None) -> float:
    """The server's retry-after when it gives one (capped), else 0.5 s doubling per attempt."""
    if retry_after:
        try:
            return min(max(float(retry_after), 0.0), MAX_DELAY_S)
        except ValueError:
            pass
    return min(0.5 * float(2 ** max(attempt - 1, 0)), MAX_DELAY_S)


def retry_after(e: anthropic.APIStatusError) -> str | None:
    """The server's wait, in seconds: retry-after-ms wins over retry-after."""
    headers = e.response.headers
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return str(float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    return str(value) if value is not None else None


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
    chain: list[BaseException] = []
    current: BaseException | None = e
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
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
    return f"{type(chain[-1]).__name__}: {chain[-1]}"[:200]


def connection_message(endpoint: str, cause: str, attempts: int) -> str:
    tries = "once" if attempts == 1 else f"{attempts} times"
    return f"Cannot reach the model at {endpoint}: {cause} (tried {tries}; {HINT})."
