"""The one trust question of `agent chat`, the trust items of `.mcp.json` servers, and the
completion of MCP resources after `@`."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from agent_cli.policy.trust import TrustStore
from agent_cli.runtime.trust_items import widening_items
from agent_cli.ui.input.completion import ChatCompleter
from agent_cli.ui.slash.trust_offer import offer_trust


@dataclass
class FakeRuntime:
    workspace: Path
    started: int = 0

    @property
    def options(self) -> Any:
        return type("O", (), {"workspace": self.workspace})()

    def start_servers(self) -> None:
        self.started += 1

    def port(self, name: str) -> Any:
        return None  # no extension's chat part


@dataclass
class FakeRepl:
    runtime: FakeRuntime
    said: list[str] = field(default_factory=list)

    def say(self, text: str, style: str = "") -> None:
        self.said.append(text)


@dataclass
class FakeScreen:
    answer: str
    asked: list[str] = field(default_factory=list)

    async def ask(self, question: str, answers: dict[str, str]) -> str:
        self.asked.append(question)
        return self.answer


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("AGENT_TRUST_WORKSPACE", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    ws = tmp_path / "ws"
    ws.mkdir()
    server = {"command": "npx", "args": ["-y", "some-server", "${ROOT:-.}"]}
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": {"docs": server}}))
    return ws


def ask(workspace: Path, answer: str, store: TrustStore) -> tuple[FakeScreen, FakeRepl]:
    screen, repl = FakeScreen(answer), FakeRepl(FakeRuntime(workspace))
    asyncio.run(offer_trust(screen, repl, store))  # type: ignore[arg-type]
    return screen, repl


def test_the_question_shows_the_command_line_and_yes_trusts(workspace: Path, tmp_path: Path):
    store = TrustStore(tmp_path / "trusted.json")
    [item] = widening_items(workspace)
    assert item.description == "mcp server docs: npx -y some-server ${ROOT:-.}"
    screen, repl = ask(workspace, "allow", store)
    assert len(screen.asked) == 1
    assert "mcp server docs: npx -y some-server ${ROOT:-.}  (.mcp.json)" in repl.said[0]
    assert store.covers(workspace, item.key, item.fingerprint)
    assert repl.runtime.started == 1
    again, _ = ask(workspace, "allow", store)
    assert again.asked == []  # covered now: not asked again


def test_no_leaves_it_untrusted_and_a_changed_line_asks_again(workspace: Path, tmp_path: Path):
    store = TrustStore(tmp_path / "trusted.json")
    _, repl = ask(workspace, "deny", store)
    assert not store.is_trusted(workspace)
    assert "stay off" in repl.said[-1]
    assert repl.runtime.started == 1  # the user's own servers start all the same
    ask(workspace, "allow", store)
    changed = {"command": "npx", "args": ["-y", "other-server"]}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"docs": changed}}))
    screen, _ = ask(workspace, "deny", store)
    assert len(screen.asked) == 1


def test_resource_mentions_complete_after_at(tmp_path: Path):
    completer = ChatCompleter(tmp_path, lambda: [], lambda: ["docs:docs://readme", "db:pg://t"])
    doc = Document("see @do")
    found = [c.text for c in completer.get_completions(doc, CompleteEvent())]
    assert found == ["docs:docs://readme"]


def test_status_line_counts_ready_servers(tmp_path: Path):
    from agent_cli.core.settings.schema import Settings
    from agent_cli.ext.mcp.chat import status_part
    from agent_cli.ext.mcp.manager import McpManager

    class Ready:
        ready = True

    manager = McpManager([], {"proj": "not started"}, Settings(), tmp_path, tmp_path)
    assert status_part(manager) == "mcp 0/1"
    manager.connections["mine"] = Ready()  # type: ignore[assignment]
    manager.entries["mine"] = None  # type: ignore[assignment]
    assert status_part(manager) == "mcp 1/2"
    assert status_part(None) is None
