"""Fixtures of the in-process end-to-end tests."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.e2e.warm import Via, Warm


@pytest.fixture(scope="module")
def warm_module() -> Iterator[Warm]:
    """One warm process for a module's tests (each run is a fresh fork of it, so nothing of
    one test's run reaches another's); stopped when the module is done."""
    warm = Warm(dict(os.environ))
    warm.start()
    yield warm
    warm.stop()


@pytest.fixture
def warm(fake_env: dict[str, str]) -> Iterator[Warm]:
    """A warm process of this test's own (not started yet); stopped afterwards."""
    server = Warm(fake_env)
    yield server
    server.stop()


@pytest.fixture(params=["in-process", "warm"])
def via(request: pytest.FixtureRequest, fake_env: dict[str, str]) -> Via:
    """The same test run both ways: in-process, and through the warm process."""
    if request.param == "in-process":
        return Via("in-process", fake_env, None)
    warm: Warm = request.getfixturevalue("warm_module")
    return Via("warm", fake_env, warm)
