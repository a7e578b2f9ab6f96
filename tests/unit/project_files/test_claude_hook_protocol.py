"""Claude Code's hook protocol with real hook processes: timeouts let the event pass, plain
stdout is context where Claude Code makes it so, the legacy `approve`/`block` words, `continue:
false`, matchers in either vocabulary, and Notification before a permission question."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from agent_cli.ext.project_files.claude.hook_ports import NotifyingApprover
from agent_cli.ext.project_files.claude.hooks import ClaudeHook, ClaudeHooks
from agent_cli.ext.project_files.vocabulary import matcher_regex
from agent_cli.policy.approval import ApprovalRequest, HeadlessApprover

PY = sys.executable


def hooks(
    tmp_path: Path, event: str, code: str, matcher: str = ".*", timeout: float = 10
) -> ClaudeHooks:
    script = tmp_path / "hook.py"
    script.write_text("import json, sys\nevent = json.load(sys.stdin)\n" + code)
    hook = ClaudeHook(event, f"{PY} {script}", matcher, timeout, "settings.json")
    return ClaudeHooks([hook], "sess", tmp_path)


def test_a_hook_that_times_out_lets_the_event_pass(tmp_path: Path):
    slow = hooks(tmp_path, "PreToolUse", "import time; time.sleep(30)\n", timeout=0.5)
    answer = asyncio.run(slow.fire("PreToolUse", "bash", tool_input={"command": "ls"}))
    assert (answer.decision, answer.block) == (None, False)


def test_plain_stdout_is_context_for_prompts_only(tmp_path: Path):
    text = hooks(tmp_path, "UserPromptSubmit", "print('branch: main')\n")
    assert asyncio.run(text.fire("UserPromptSubmit", prompt="hi")).context == ["branch: main"]
    post = hooks(tmp_path, "PostToolUse", "print('just noise')\n")
    assert asyncio.run(post.fire("PostToolUse", "bash")).context == []


def test_legacy_words_and_continue_false(tmp_path: Path):
    legacy = hooks(
        tmp_path, "PreToolUse", "print(json.dumps({'decision': 'block', 'reason': 'old style'}))\n"
    )
    answer = asyncio.run(legacy.fire("PreToolUse", "bash"))
    assert (answer.decision, answer.reason) == ("deny", "old style")
    approve = hooks(tmp_path, "PreToolUse", "print(json.dumps({'decision': 'approve'}))\n")
    assert asyncio.run(approve.fire("PreToolUse", "bash")).decision == "allow"
    stop = hooks(tmp_path, "Stop", "print(json.dumps({'continue': False, 'stopReason': 'x'}))\n")
    assert asyncio.run(stop.fire("Stop")).block


def test_matchers_in_either_vocabulary(tmp_path: Path):
    code = "print(json.dumps({'decision': 'block', 'reason': event['tool_name']}))\n"
    for matcher in ("Bash", "bash", "Edit|Bash", "*"):
        h = hooks(tmp_path, "PreToolUse", code, matcher_regex(matcher))
        assert asyncio.run(h.fire("PreToolUse", "bash")).reason == "Bash", matcher
        assert asyncio.run(h.fire("PreToolUse", "grep")).decision is (
            "deny" if matcher == "*" else None
        )


def test_notification_before_a_permission_question(tmp_path: Path):
    h = hooks(
        tmp_path,
        "Notification",
        f"open({str(tmp_path / 'seen.json')!r}, 'w').write(json.dumps(event))\n",
    )
    approver = NotifyingApprover(HeadlessApprover(), h)
    request = ApprovalRequest("bash", "bash rm -r build", "bash(rm *)", "bypass")
    assert asyncio.run(approver.approve(request)) == "deny"
    seen = json.loads((tmp_path / "seen.json").read_text())
    assert seen["hook_event_name"] == "Notification"
    assert seen["message"] == "Permission needed: bash rm -r build"
