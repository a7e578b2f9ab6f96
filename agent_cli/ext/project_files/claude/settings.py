"""`hooks` and `permissions` from Claude Code's settings files (`.claude/settings.json` and
`settings.local.json` in the workspace, `~/.claude/settings.json`), read tolerantly: another
product's file, so unknown keys are ignored and a broken file is one warning line."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent_cli.ext.project_files import vocabulary as vocab
from agent_cli.ext.project_files.claude.hooks import EVENTS, ClaudeHook
from agent_cli.ext.project_files.sources import Root, Scope

log = logging.getLogger(__name__)

FILES = ("settings.json", "settings.local.json")
DEFAULT_TIMEOUT_S = 60.0
MAX_TIMEOUT_S = 600.0
BLOCKING_EVENTS = ("PreToolUse", "UserPromptSubmit")  # where a failing hook can block


@dataclass(frozen=True)
class Rule:
    kind: str  # allow / deny / ask
    original: str
    patterns: tuple[str, ...]  # ours; empty when no tool of ours is concerned
    source: str
    scope: Scope


@dataclass
class ClaudeSettings:
    hooks: list[tuple[ClaudeHook, Scope]] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def settings_files(roots: list[Root]) -> list[tuple[Path, Scope]]:
    return [
        (r.path / name, r.scope)
        for r in roots
        if r.path.name == ".claude"
        for name in FILES
        if (r.path / name).is_file()
    ]


def load_claude_settings(roots: list[Root]) -> ClaudeSettings:
    found = ClaudeSettings()
    for path, scope in settings_files(roots):
        read_settings_file(path, scope, found)
    return found


def read_settings_file(path: Path, scope: Scope, found: ClaudeSettings) -> None:
    try:
        text = path.read_text(encoding="utf-8-sig")
        data = json.loads(text) if text.strip() else {}
    except (OSError, ValueError) as e:
        message = f"{path}: not read ({e})"
        log.warning("%s", message)
        found.warnings.append(message)
        return
    if not isinstance(data, dict):
        found.warnings.append(f"{path}: not a JSON object; ignored")
        return
    found.hooks += [(h, scope) for h in hooks_of(data.get("hooks"), str(path), found)]
    found.rules += _rules(data.get("permissions"), str(path), scope)


def hooks_of(value: Any, source: str, found: ClaudeSettings) -> list[ClaudeHook]:
    """Claude Code's `hooks` object (`{event: [matcher group, ...]}`) read; what cannot be
    used is a warning in `found` or a log line."""
    if not isinstance(value, dict):
        return []
    hooks: list[ClaudeHook] = []
    for event, groups in value.items():
        if event not in EVENTS:
            log.debug("%s: hook event %s is not one we fire; ignored", source, event)
            continue
        for group in groups if isinstance(groups, list) else []:
            if not isinstance(group, dict):
                continue
            matcher = vocab.matcher_regex(str(group.get("matcher") or ""))
            for spec in group.get("hooks") or []:
                if isinstance(spec, dict) and spec.get("type", "command") != "command":
                    log.info(
                        "%s: a %s hook of type %s is not supported; ignored",
                        source,
                        event,
                        spec.get("type"),
                    )
                    continue
                hook = _hook(event, matcher, spec, source)
                if hook is None:
                    found.warnings.append(f"{source}: a {event} hook without a command; ignored")
                else:
                    hooks.append(_on_failure(hook, spec, found.warnings))
    return hooks


def _hook(event: str, matcher: str, spec: Any, source: str) -> ClaudeHook | None:
    if not isinstance(spec, dict) or not str(spec.get("command") or "").strip():
        return None
    try:
        timeout = float(spec.get("timeout") or DEFAULT_TIMEOUT_S)
    except (TypeError, ValueError):
        timeout = DEFAULT_TIMEOUT_S
    timeout = min(max(timeout, 0.1), MAX_TIMEOUT_S)
    return ClaudeHook(event, str(spec["command"]), matcher, timeout, source)


def _on_failure(hook: ClaudeHook, spec: dict[str, Any], warnings: list[str]) -> ClaudeHook:
    value = spec.get("on_failure", "pass")
    if value == "pass":
        return hook
    if value == "block" and hook.event in BLOCKING_EVENTS:
        return replace(hook, block_on_failure=True)
    # a hook meant to fail closed that would not: said, never silently let pass
    where = " on a PreToolUse or UserPromptSubmit hook" if value == "block" else ""
    message = (
        f"{hook.source}: {hook.event} hook {hook.command!r}: on_failure {value!r} "
        f"is not one we honour{where} ('pass' or 'block'); it lets failures pass"
    )
    warnings.append(message)  # for `agent files` and chat's listing
    log.warning("%s", message)  # and for the run that would rely on it
    return hook


def _rules(value: Any, source: str, scope: Scope) -> list[Rule]:
    if not isinstance(value, dict):
        return []
    rules: list[Rule] = []
    for kind in ("allow", "deny", "ask"):
        entries = value.get(kind)
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, str) and entry.strip():
                patterns = tuple(vocab.rule_patterns(entry))
                rules.append(Rule(kind, entry, patterns, source, scope))
    return rules
