"""Hooks in Claude Code's protocol, from `hooks` in `.claude/settings.json`.

The event's JSON goes to stdin (session id, transcript path, cwd, event name, tool name and
input in Claude Code's names, ...). Exit 2 blocks, stderr going to the model; exit 0 with JSON on
stdout decides (PreToolUse allow/deny/ask with a reason and an updated input; UserPromptSubmit
extra context or block; SessionStart context; Stop and SubagentStop `block` with a reason that
keeps the agent working); any other exit, a timeout or unreadable output lets the event pass.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_cli.policy.hooks import hook_failure, run_process

log = logging.getLogger(__name__)

EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
)
MAX_TEXT = 10_000
# our tool names as Claude Code's hooks know them, and the input keys it uses
CC_NAMES = {
    "read_file": "Read",
    "write_file": "Write",
    "edit_file": "Edit",
    "bash": "Bash",
    "glob": "Glob",
    "grep": "Grep",
    "todo_write": "TodoWrite",
    "task": "Task",
    "skill": "Skill",
}
CC_KEYS = {"path": "file_path"}


@dataclass(frozen=True)
class ClaudeHook:
    event: str
    command: str
    matcher: str  # a regex over tool names, ours or Claude Code's
    timeout_s: float
    source: str
    env: tuple[tuple[str, str], ...] = ()  # a plugin's: CLAUDE_PLUGIN_ROOT, CLAUDE_PLUGIN_DATA
    block_on_failure: bool = False  # `"on_failure": "block"` (PreToolUse, UserPromptSubmit)

    def matches(self, tool: str | None) -> bool:
        if tool is None:
            return True
        names = (tool, CC_NAMES.get(tool, tool))
        try:
            return any(re.fullmatch(self.matcher, n) for n in names)
        except re.error:
            return self.matcher in names


@dataclass
class HookAnswer:
    """What the hooks of one event decided, merged in order (a block or deny wins)."""

    block: bool = False
    reason: str = ""
    decision: str | None = None  # PreToolUse: allow / deny / ask
    updated_input: dict[str, Any] | None = None
    context: list[str] = field(default_factory=list)


def cc_input(tool: str, data: dict[str, Any]) -> dict[str, Any]:
    if tool not in ("read_file", "write_file", "edit_file"):
        return data
    return {CC_KEYS.get(k, k): v for k, v in data.items()}


def our_input(tool: str, data: dict[str, Any]) -> dict[str, Any]:
    back = (
        {v: k for k, v in CC_KEYS.items()}
        if tool in ("read_file", "write_file", "edit_file")
        else {}
    )
    return {back.get(k, k): v for k, v in data.items()}


class ClaudeHooks:
    def __init__(
        self,
        hooks: list[ClaudeHook],
        session_id: str,
        workspace: Path,
        transcript: Path | None = None,
        mode: str = "default",
    ) -> None:
        self.hooks = hooks
        self.session_id = session_id
        self.workspace = workspace
        self.transcript = transcript
        self.mode = mode

    def has(self, event: str) -> bool:
        return any(h.event == event for h in self.hooks)

    async def fire(self, event: str, tool: str | None = None, **fields: Any) -> HookAnswer:
        answer = HookAnswer()
        payload = {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript or ""),
            "cwd": str(self.workspace),
            "hook_event_name": event,
            "permission_mode": self.mode,
            **fields,
        }
        if tool is not None:
            payload["tool_name"] = CC_NAMES.get(tool, tool)
        for hook in (h for h in self.hooks if h.event == event and h.matches(tool)):
            label = f"{event} hook {hook.command!r} ({hook.source})"
            new = await self._run(hook, payload, label)
            if new is not None:
                _merge(answer, new, label)
            if answer.block or answer.decision == "deny":
                break
        return answer

    async def _run(
        self, hook: ClaudeHook, payload: dict[str, Any], label: str
    ) -> HookAnswer | None:
        """The hook's answer; None when it failed and lets the event pass."""
        env = {"CLAUDE_PROJECT_DIR": str(self.workspace), "AGENT_HOOK_EVENT": hook.event}
        env.update(hook.env)
        ran = await run_process(
            hook.command, json.dumps(payload), self.workspace, hook.timeout_s, env
        )
        failure = hook_failure(ran)
        if failure is not None and hook.block_on_failure:
            log.warning("%s %s; blocking (on_failure: block)", label, failure)
            why = f"the hook {hook.command!r} ({hook.source}) {failure}"
            return HookAnswer(
                block=True, decision="deny", reason=f"{why}, and it is set to block when it fails"
            )
        if isinstance(ran, str):
            log.warning("%s %s; letting it pass", label, ran)
            return None
        return read_outcome(hook.event, *ran)


def read_outcome(event: str, code: int | None, out: str, err: str) -> HookAnswer:
    if code == 2:
        return HookAnswer(
            block=True,
            decision="deny",
            reason=err.strip()[:MAX_TEXT] or f"blocked by a {event} hook (it gave no reason)",
        )
    if code != 0:
        log.warning("%s hook failed (exit %s): %s; letting it pass", event, code, err[:300])
        return HookAnswer()
    data = _json(out)
    if data is None:  # plain stdout is context where Claude Code makes it so
        text = out.strip()[:MAX_TEXT]
        return HookAnswer(
            context=[text] if text and event in ("UserPromptSubmit", "SessionStart") else []
        )
    return _decided(event, data)


def _decided(event: str, data: dict[str, Any]) -> HookAnswer:
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    answer = HookAnswer()
    decision = str(specific.get("permissionDecision") or data.get("decision") or "").lower()
    reason = str(
        specific.get("permissionDecisionReason")
        or data.get("reason")
        or data.get("stopReason")
        or ""
    )[:MAX_TEXT]
    if event == "PreToolUse":
        decision = {"approve": "allow", "block": "deny"}.get(decision, decision)
        answer.decision = decision if decision in ("allow", "deny", "ask") else None
        updated = specific.get("updatedInput")
        answer.updated_input = updated if isinstance(updated, dict) else None
    elif decision == "block":
        answer.block = True
    if data.get("continue") is False:
        answer.block, answer.decision = True, "deny"
    answer.reason = reason
    context = specific.get("additionalContext")
    if isinstance(context, str) and context.strip():
        answer.context.append(context.strip()[:MAX_TEXT])
    return answer


def _json(out: str) -> dict[str, Any] | None:
    text = out.strip()
    candidates = [text, *(line for line in reversed(text.splitlines()) if line.startswith("{"))]
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    return None


def _merge(answer: HookAnswer, new: HookAnswer, label: str) -> None:
    log.info("%s: %s", label, new.decision or ("block" if new.block else "pass"))
    answer.context += new.context
    if new.updated_input is not None:
        answer.updated_input = {**(answer.updated_input or {}), **new.updated_input}
    rank = {None: 0, "allow": 1, "ask": 2, "deny": 3}
    if rank[new.decision] > rank[answer.decision]:
        answer.decision, answer.reason = new.decision, new.reason or answer.reason
    if new.block:
        answer.block, answer.reason = True, new.reason
