"""Hooks: JSON on stdin, exit codes, stdout decisions, matchers, timeouts; all logged."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path

import pytest

from agent_cli.core.settings.schema import HooksSettings
from agent_cli.policy.hooks import Hooks
from tests.unit.tool_helpers import running

PY = sys.executable


def hooks(tmp_path: Path, **events: list[dict[str, object]]) -> Hooks:
    return Hooks(HooksSettings.model_validate(events), "sess-1", tmp_path)


def test_stdin_payload_and_pass(tmp_path: Path):
    h = hooks(tmp_path, pre_tool_use=[{"command": "cat > seen.json"}])
    assert asyncio.run(h.pre_tool_use("bash", {"command": "ls"})) is None
    assert json.loads((tmp_path / "seen.json").read_text()) == {
        "event": "pre_tool_use",
        "session_id": "sess-1",
        "workspace": str(tmp_path),
        "tool_name": "bash",
        "tool_input": {"command": "ls"},
    }


def test_exit_2_denies_with_stderr(tmp_path: Path):
    h = hooks(tmp_path, user_prompt_submit=[{"command": "echo 'no prompts today' >&2; exit 2"}])
    assert asyncio.run(h.user_prompt_submit("hi")) == "no prompts today"


def test_stdout_decision_denies(tmp_path: Path):
    reply = json.dumps({"decision": "deny", "reason": "use grep instead"})
    h = hooks(tmp_path, pre_tool_use=[{"command": f"echo '{reply}'", "matcher": "bash|glob"}])
    assert asyncio.run(h.pre_tool_use("bash", {})) == "use grep instead"
    assert asyncio.run(h.pre_tool_use("read_file", {})) is None  # matcher is a full match
    assert asyncio.run(h.pre_tool_use("bash_extra", {})) is None


def test_failures_and_timeouts_let_it_pass(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    h = hooks(
        tmp_path,
        pre_tool_use=[
            {"command": "echo broken >&2; exit 1"},
            {"command": "echo $$ > hook.pid; sleep 30", "timeout_s": 0.5},
            {"command": "echo not json"},
        ],
    )
    with caplog.at_level(logging.INFO, logger="agent_cli.policy.hooks"):
        assert asyncio.run(h.pre_tool_use("bash", {})) is None
    messages = [r.getMessage() for r in caplog.records]
    assert any("failed (exit 1)" in m and "broken" in m for m in messages)
    assert any("timed out" in m for m in messages)
    assert any(m.endswith(": pass") for m in messages)
    pid = int((tmp_path / "hook.pid").read_text())
    assert not running(pid)  # the timed-out hook was killed, not left behind


def test_post_tool_use_and_stop_see_their_payloads(tmp_path: Path):
    h = hooks(
        tmp_path,
        post_tool_use=[{"command": "cat > post.json"}],
        stop=[{"command": "cat > stop.json; exit 2"}],
    )
    asyncio.run(h.post_tool_use("read_file", {"path": "a"}, "content", False))
    asyncio.run(h.stop("done", "final words"))
    post = json.loads((tmp_path / "post.json").read_text())
    assert post["tool_result"] == {"content": "content", "is_error": False}
    stop = json.loads((tmp_path / "stop.json").read_text())
    assert (stop["event"], stop["stop_reason"], stop["text"]) == ("stop", "done", "final words")


def test_hooks_never_see_the_api_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret-value-1234")
    h = hooks(tmp_path, stop=[{"command": 'echo "key=$ANTHROPIC_API_KEY" > env.txt'}])
    asyncio.run(h.stop("done", ""))
    assert (tmp_path / "env.txt").read_text() == "key=\n"


def test_the_notification_hook_hears_why_the_agent_waits(tmp_path: Path):
    h = hooks(tmp_path, notification=[{"command": "cat > seen.json; exit 2"}])
    asyncio.run(h.notification("approval", "Allow bash make?"))  # it cannot deny anything
    assert json.loads((tmp_path / "seen.json").read_text()) == {
        "event": "notification",
        "session_id": "sess-1",
        "workspace": str(tmp_path),
        "kind": "approval",
        "message": "Allow bash make?",
    }
