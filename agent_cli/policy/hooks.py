"""Hooks (SPEC §12): shell commands from settings, run with a JSON description on stdin.

Exit 0 lets the event pass (stdout may hold `{"decision": "deny", "reason": "..."}`); exit 2
denies with stderr as the reason; any other exit, a hook that cannot start or a timeout is logged
and lets it pass, unless the hook says `"on_failure": "block"`: then it denies, naming the hook
and what went wrong. Only `pre_tool_use` and `user_prompt_submit` can deny; every outcome is
logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import signal
from pathlib import Path
from typing import Any

from agent_cli.core.events import Event, TurnEnd
from agent_cli.core.messages import Block
from agent_cli.core.outside.env import default_env
from agent_cli.core.settings.schema import HookSpec, HooksSettings
from agent_cli.policy.turn_hooks import prompt_text, veto_events

log = logging.getLogger(__name__)

MAX_REASON_CHARS = 2_000
MAX_RESULT_CHARS = 20_000


class Hooks:
    def __init__(self, settings: HooksSettings, session_id: str, workspace: Path) -> None:
        self.settings = settings
        self.session_id = session_id
        self.workspace = workspace

    def _payload(self, event: str, **fields: Any) -> dict[str, Any]:
        return {
            "event": event,
            "session_id": self.session_id,
            "workspace": str(self.workspace),
            **fields,
        }

    async def pre_tool_use(self, tool_name: str, tool_input: dict[str, Any]) -> str | None:
        payload = self._payload("pre_tool_use", tool_name=tool_name, tool_input=tool_input)
        return await self._fire(self.settings.pre_tool_use, payload, tool_name)

    async def post_tool_use(
        self, tool_name: str, tool_input: dict[str, Any], content: str, is_error: bool
    ) -> None:
        result = {"content": content[:MAX_RESULT_CHARS], "is_error": is_error}
        payload = self._payload(
            "post_tool_use", tool_name=tool_name, tool_input=tool_input, tool_result=result
        )
        await self._fire(self.settings.post_tool_use, payload, tool_name)

    async def user_prompt_submit(self, prompt: str) -> str | None:
        payload = self._payload("user_prompt_submit", prompt=prompt)
        return await self._fire(self.settings.user_prompt_submit, payload, None)

    async def stop(self, stop: str, text: str) -> None:
        payload = self._payload("stop", stop_reason=stop, text=text)
        await self._fire(self.settings.stop, payload, None)

    async def notification(self, kind: str, message: str) -> None:
        """The agent needs the user: `kind` is "turn_done", "approval" or "question"."""
        payload = self._payload("notification", kind=kind, message=message)
        await self._fire(self.settings.notification, payload, None)

    # the loop's TurnHooks port
    async def before_turn(self, blocks: list[Block]) -> list[Event]:
        reason = await self.user_prompt_submit(prompt_text(blocks))
        return [] if reason is None else veto_events(reason)

    async def after_turn(self, end: TurnEnd) -> str | None:
        await self.stop(end.stop, end.text)
        return None

    async def _fire(
        self, specs: list[HookSpec], payload: dict[str, Any], tool_name: str | None
    ) -> str | None:
        """Runs the matching hooks in order; the first denial wins."""
        for spec in specs:
            if tool_name is not None and not _matches(spec, tool_name):
                continue
            reason = await run_hook(spec, payload, self.workspace)
            if reason is not None and payload["event"] in ("pre_tool_use", "user_prompt_submit"):
                return reason
        return None


def _matches(spec: HookSpec, tool_name: str) -> bool:
    # HookSpec validated the regex: a bad one never gets here to skip the hook silently
    return spec.matcher is None or re.fullmatch(spec.matcher, tool_name) is not None


async def run_hook(spec: HookSpec, payload: dict[str, Any], cwd: Path) -> str | None:
    """The hook's denial reason, or None when it lets the event pass."""
    event, label = payload["event"], f"{payload['event']} hook {spec.command!r}"
    env = {"AGENT_HOOK_EVENT": event}
    ran = await run_process(spec.command, json.dumps(payload), cwd, spec.timeout_s, env)
    failure = hook_failure(ran)
    if failure is None and not isinstance(ran, str):
        return _outcome(label, *ran)
    if spec.on_failure == "block":
        log.warning("%s %s; blocking (on_failure: block)", label, failure)
        return f"the hook {spec.command!r} {failure}, and it is set to block when it fails"
    log.warning("%s %s; letting it pass", label, failure)
    return None


def hook_failure(ran: tuple[int | None, str, str] | str) -> str | None:
    """What went wrong with a hook that did not answer (exit 0 or 2), or None when it did."""
    if isinstance(ran, str):
        return ran
    code, _, err = ran
    if code in (0, 2):
        return None
    detail = err.strip()[:500]
    return f"failed (exit {code})" + (f": {detail}" if detail else "")


async def run_process(
    command: str, stdin: str, cwd: Path, timeout_s: float, env: dict[str, str]
) -> tuple[int | None, str, str] | str:
    """(exit code, stdout, stderr) of a hook command, or what went wrong when it could not
    start or timed out (the caller decides whether the event passes)."""
    from agent_cli.core.outside.watch import spawn_watched  # not needed by a run without hooks

    spawned = spawn_watched(
        ["/bin/sh", "-c", command],
        cwd=cwd,
        env=default_env(env),  # the user's environment less credentials
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with spawned as proc:
            return await _communicate(proc, stdin, timeout_s)
    except OSError as e:
        return f"could not start ({e})"


async def _communicate(
    proc: asyncio.subprocess.Process, stdin: str, timeout_s: float
) -> tuple[int | None, str, str] | str:
    try:
        out, err = await asyncio.wait_for(proc.communicate(stdin.encode()), timeout_s)
    except TimeoutError:
        _kill(proc)
        await proc.wait()
        return f"timed out after {timeout_s:g} s"
    except BaseException:
        _kill(proc)
        with contextlib.suppress(BaseException):
            await asyncio.shield(proc.wait())
        raise
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def _outcome(label: str, code: int | None, out: str, err: str) -> str | None:
    if code == 2:
        reason = err.strip()[:MAX_REASON_CHARS] or "denied by a hook (it gave no reason)"
        log.info("%s: deny (exit 2): %s", label, reason)
        return reason
    decision = _decision(out)
    if decision is not None:
        log.info("%s: deny: %s", label, decision)
        return decision
    log.info("%s: pass", label)
    return None


def _decision(stdout: str) -> str | None:
    try:
        data = json.loads(stdout) if stdout.strip() else None
    except json.JSONDecodeError:
        return None
    if isinstance(data, dict) and data.get("decision") == "deny":
        reason = str(data.get("reason") or "denied by a hook (it gave no reason)")
        return reason[:MAX_REASON_CHARS]
    return None


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
