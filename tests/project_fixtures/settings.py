"""`.claude/settings.json` files in the shapes real repositories use (written for this suite):
hooks for each event with and without matchers, timeouts, permission rules of every shape,
keys we do not use, an empty file, broken JSON.

Each entry: (text, expected hook count, expected (event, matcher regex) of the first hook or
None, expected our patterns of allow / deny / ask, warned).
"""

from __future__ import annotations

import json
from typing import Any

Expected = tuple[str, int, tuple[str, str] | None, dict[str, list[str]], bool]


def _hooks(event: str, command: str, matcher: str | None = None, **extra: Any) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **extra}]}
    if matcher is not None:
        group["matcher"] = matcher
    return {event: [group]}


def _doc(**parts: Any) -> str:
    return json.dumps(parts, indent=2)


NONE: dict[str, list[str]] = {"allow": [], "deny": [], "ask": []}

SETTINGS: list[Expected] = [
    (_doc(hooks=_hooks("PreToolUse", "./guard.sh", "Bash")), 1, ("PreToolUse", "Bash|bash"),
     NONE, False),
    (_doc(hooks=_hooks("PostToolUse", "ruff format", "Edit|Write")), 1,
     ("PostToolUse", "Edit|edit_file|Write|write_file"), NONE, False),
    (_doc(hooks=_hooks("Stop", "./done.sh")), 1, ("Stop", ".*"), NONE, False),
    (_doc(hooks=_hooks("UserPromptSubmit", "./ctx.sh", "")), 1, ("UserPromptSubmit", ".*"),
     NONE, False),
    (_doc(hooks=_hooks("SessionStart", "cat NOTES.md", "startup")), 1,
     ("SessionStart", "startup"), NONE, False),
    (_doc(hooks=_hooks("SubagentStop", "./sub.sh")), 1, ("SubagentStop", ".*"), NONE, False),
    (_doc(hooks=_hooks("PreCompact", "./save.sh", "manual")), 1, ("PreCompact", "manual"),
     NONE, False),
    (_doc(hooks=_hooks("SessionEnd", "./bye.sh")), 1, ("SessionEnd", ".*"), NONE, False),
    (_doc(hooks=_hooks("Notification", "notify-send hi")), 1, ("Notification", ".*"), NONE, False),
    (_doc(hooks=_hooks("PreToolUse", "./mcp.sh", "mcp__github__.*")), 1,
     ("PreToolUse", "mcp__github__.*"), NONE, False),
    (_doc(hooks=_hooks("PreToolUse", "./all.sh", "*", timeout=5)), 1, ("PreToolUse", ".*"),
     NONE, False),
    (_doc(hooks={**_hooks("TaskCompleted", "./x.sh"), **_hooks("Setup", "./y.sh")}), 0, None,
     NONE, False),
    (_doc(hooks={"PreToolUse": [{"matcher": "Bash",
                                 "hooks": [{"type": "prompt", "prompt": "?"}]}]}),
     0, None, NONE, False),
    (_doc(permissions={"allow": ["Bash(npm run test:*)"]}), 0, None,
     {**NONE, "allow": ["bash(npm run test)", "bash(npm run test *)"]}, False),
    (_doc(permissions={"deny": ["Read(./secrets/**)"]}), 0, None,
     {**NONE, "deny": ["read_file(secrets/**)", "glob(secrets/**)", "grep(secrets/**)"]}, False),
    (_doc(permissions={"ask": ["Bash(git push:*)"]}), 0, None,
     {**NONE, "ask": ["bash(git push)", "bash(git push *)"]}, False),
    (_doc(permissions={"allow": ["Edit", "WebFetch(domain:example.com)"]}), 0, None,
     {**NONE, "allow": ["edit_file", "write_file"]}, False),
    (_doc(permissions={"allow": ["Bash(ls *)"], "deny": ["Bash(rm -rf:*)"],
                       "defaultMode": "acceptEdits"}), 0, None,
     {**NONE, "allow": ["bash(ls *)"], "deny": ["bash(rm -rf)", "bash(rm -rf *)"]}, False),
    (_doc(permissions={"allow": ["mcp__github__get_issue", "Write(docs/**)"]}), 0, None,
     {**NONE, "allow": ["mcp__github__get_issue", "write_file(docs/**)"]}, False),
    (_doc(permissions={"allow": ["Bash(exact command)"]}), 0, None,
     {**NONE, "allow": ["bash(exact command)"]}, False),
    (_doc(env={"FOO": "1"}, statusLine={"type": "command", "command": "x"}, model="opus"), 0,
     None, NONE, False),
    ("", 0, None, NONE, False),
    ("{not json", 0, None, NONE, True),
    ("[1, 2]", 0, None, NONE, True),
    ("\ufeff" + _doc(hooks=_hooks("Stop", "./bom.sh")), 1, ("Stop", ".*"), NONE, False),
    (_doc(hooks=_hooks("PreToolUse", "./a.sh", "Read|Grep")).replace("\n", "\r\n"), 1,
     ("PreToolUse", "Read|read_file|Grep|grep"), NONE, False),
]
