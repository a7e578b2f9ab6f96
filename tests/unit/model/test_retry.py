"""The causes a connection failure is named by, and the back-off (model/retry.py)."""

from __future__ import annotations

import socket
import ssl

import httpx2
import pytest

from agent_cli.model.retry import connection_cause, delay_s


def caused(outer: Exception, inner: BaseException) -> Exception:
    outer.__cause__ = inner
    return outer


def test_causes_are_named():
    refused = caused(httpx2.ConnectError("All attempts failed"), ConnectionRefusedError())
    assert connection_cause(refused) == "connection refused"
    dns = caused(httpx2.ConnectError("boom"), socket.gaierror(-2, "Name or service not known"))
    assert connection_cause(dns) == "DNS lookup failed (unknown host)"
    tls = caused(httpx2.ConnectError("boom"), ssl.SSLCertVerificationError("certificate verify"))
    assert connection_cause(tls) == "TLS handshake failed"
    assert connection_cause(httpx2.ConnectTimeout("slow")) == "timed out"
    assert connection_cause(OSError("odd")) == "OSError: odd"


def test_back_off_doubles_and_honours_retry_after_exactly():
    assert [delay_s(k, None) for k in (1, 2, 3, 4, 5, 6)] == [0.5, 1, 2, 4, 8, 8]
    assert delay_s(1, 0.02) == 0.02
    # the server's wait is not capped at the back-off's 8 s (issue 52): max_retry_wait_s bounds it
    assert delay_s(1, 3600.0) == 3600.0
    assert delay_s(2, 0.0) == 1.0  # none asked: the back-off


def _import_failed_while_looking_up() -> None:
    loaded_backends: dict[str, type] = {}
    try:
        loaded_backends["asyncio"]
    except KeyError:
        raise EOFError("marshal data too short")  # noqa: B904 (as anyio does)


def _the_transport_wraps_it() -> None:
    try:
        _import_failed_while_looking_up()
    except EOFError as err:
        raise httpx2.ConnectError("boom") from err


def test_the_error_raised_is_named_not_what_was_being_handled_when_it_was():
    """anyio looks its backend up in a dict and imports it on a KeyError: when that import failed
    (a cut bytecode file), the line named the KeyError and hid the import's own error."""
    with pytest.raises(httpx2.ConnectError) as raised:
        _the_transport_wraps_it()
    assert isinstance(raised.value.__cause__, EOFError)
    assert isinstance(raised.value.__cause__.__context__, KeyError)
    assert connection_cause(raised.value) == "EOFError: marshal data too short"
