"""Fixtures of the unit tests."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


@pytest.fixture
def fresh_logging() -> Iterator[None]:
    """Takes down the handlers a test's setup_logging installed on the root logger."""
    yield
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
