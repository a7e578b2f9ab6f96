"""Fixtures of the in-process end-to-end tests."""

from __future__ import annotations

import pytest

from tests.conftest import FAKE_API_KEY
from tests.fake_model import FakeAnthropic


@pytest.fixture
def sdk_env(fake_model: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real SDK, in this process, pointed at `fake_model` with a fake key."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_model.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_API_KEY)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
