"""A chat change that rewrites the cached prompt prefix says so when it is made (issue 53)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from agent_cli.ext.daily import chat_workspace
from agent_cli.runtime.extensions.registry import BUILTINS, discover
from agent_cli.ui.slash import commands as slash
from agent_cli.ui.slash.host import Host
from tests.unit.ui.test_extension_slash import FakeHost

NOTE = "the next request writes the prompt cache again"


def host_with_model(tmp_path: Path, model: str) -> FakeHost:
    host = FakeHost(discover(path=[], builtins=BUILTINS), tmp_path)
    session = SimpleNamespace(model=model)
    host.runtime.session = session

    def set_model(name: str) -> str:
        session.model = name
        return name

    host.runtime.tuning = SimpleNamespace(set_model=set_model)
    return host


def notes(host: FakeHost) -> list[tuple[str, str]]:
    return [(text, style) for text, style in host.said if NOTE in text]


def test_switching_the_model_warns_of_the_cache_rewrite(tmp_path: Path):
    host = host_with_model(tmp_path, "claude-sonnet-4-6")
    slash.run(cast(Host, host), "/model claude-opus-4-6")
    [(text, style)] = notes(host)
    assert "switching the model" in text
    assert style == "yellow"


def test_naming_the_same_model_says_nothing_of_the_cache(tmp_path: Path):
    host = host_with_model(tmp_path, "claude-sonnet-4-6")
    slash.run(cast(Host, host), "/model claude-sonnet-4-6")
    assert notes(host) == []


def test_adding_a_directory_warns_of_the_cache_rewrite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    service: Any = SimpleNamespace(add_dir=lambda raw: tmp_path / raw, added_dirs=[])
    monkeypatch.setattr(chat_workspace, "daily", lambda host: service)
    host = FakeHost(discover(path=[], builtins=BUILTINS), tmp_path)
    chat_workspace.add_dir(cast(Host, host), "other")
    [(text, _)] = notes(host)
    assert "adding a directory" in text
