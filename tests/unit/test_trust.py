"""Workspace trust: kept per user, outside the workspace; items fingerprinted; revocable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_cli.policy.trust import TrustItem, TrustStore, grant_items


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TrustStore:
    monkeypatch.delenv("AGENT_TRUST_WORKSPACE", raising=False)
    return TrustStore(tmp_path / "config" / "trusted.json")


def test_untrusted_until_trusted_then_revoked(store: TrustStore, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    assert not store.is_trusted(ws)
    store.trust(ws)
    assert store.is_trusted(ws)
    assert store.is_trusted(ws / ".." / "ws")  # the resolved path is the key
    assert not store.is_trusted(tmp_path)  # a parent is not trusted by its child
    assert store.revoke(ws)
    assert not store.is_trusted(ws)
    assert not store.revoke(ws)


def test_changed_item_is_not_covered(store: TrustStore, tmp_path: Path) -> None:
    item = TrustItem(key="mcp:db", source=".mcp.json", description="node server.js")
    store.trust(tmp_path, grant_items([item]))
    assert store.covers(tmp_path, "mcp:db", item.fingerprint)
    changed = TrustItem(key="mcp:db", source=".mcp.json", description="node evil.js")
    assert not store.covers(tmp_path, "mcp:db", changed.fingerprint)
    assert not store.covers(tmp_path, "mcp:other", item.fingerprint)


def test_unreadable_store_trusts_nothing(store: TrustStore, tmp_path: Path) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_text("{not json")
    assert not store.is_trusted(tmp_path)
    store.trust(tmp_path)  # and trusting rewrites it whole
    assert store.is_trusted(tmp_path)
    assert oct(store.path.stat().st_mode & 0o777) == "0o600"


def test_environment_trusts_one_invocation(
    store: TrustStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TRUST_WORKSPACE", "1")
    assert store.is_trusted(tmp_path)
    assert not store.path.exists()  # nothing recorded


def test_agent_trust_command(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".agent").mkdir(parents=True)
    settings = {
        "permissions": {"mode": "bypass", "allow": ["bash(make*)"]},
        "hooks": {"pre_tool_use": [{"command": "./check.sh"}]},
    }
    (ws / ".agent" / "settings.json").write_text(json.dumps(settings))
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    env.pop("AGENT_TRUST_WORKSPACE", None)

    def agent(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agent_cli", *args, "--workspace", str(ws)],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    out = agent("trust")
    assert out.returncode == 0, out.stderr
    assert "mode bypass" in out.stdout
    assert "allow bash(make*)" in out.stdout
    assert "hook pre_tool_use: ./check.sh" in out.stdout
    saved = json.loads((tmp_path / "cfg" / "agent" / "trusted.json").read_text())
    assert str(ws.resolve()) in saved["workspaces"]
    assert not (ws / ".agent" / "trusted.json").exists()
    out = agent("trust", "--revoke")
    assert out.returncode == 0
    assert "no longer trusted" in out.stdout
    saved = json.loads((tmp_path / "cfg" / "agent" / "trusted.json").read_text())
    assert saved["workspaces"] == {}


def test_web_settings_that_widen_what_web_fetch_reaches_need_trust(tmp_path: Path) -> None:
    from agent_cli.runtime.trust_items import widening_items

    (tmp_path / ".agent").mkdir()
    web = {"allow_private_hosts": True, "allow_credential_urls": True, "search": True}
    (tmp_path / ".agent" / "settings.json").write_text(json.dumps({"web": web}))
    items = widening_items(tmp_path)
    assert [(i.key, i.description) for i in items] == [
        ("web:allow_private_hosts", "web.allow_private_hosts"),
        ("web:allow_credential_urls", "web.allow_credential_urls"),
    ]
