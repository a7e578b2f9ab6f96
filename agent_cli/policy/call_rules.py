"""What the rules say of one tool call before anyone is asked: refused in every mode (a file tool
writing outside the workspace or into the state folders, the shell deny list, `permissions.deny`
patterns), allowed, refused by the mode, or a question (`Ask`). The session's `Permissions`
(permissions.py) imports this with its first call's check, and with it the pattern and shell
rules it reads: a run that makes no call never does."""

from __future__ import annotations

from dataclasses import dataclass

from agent_cli.core.tool_contract import AnyTool, ToolContext, ToolInput
from agent_cli.policy.patterns import bash_pattern, call_subject, folder_of, matches, reads_outside
from agent_cli.tools.fs import PathRefused, protected, writable_path
from agent_cli.tools.shell.rules import denied, is_read_only

EDIT_TOOLS = frozenset({"write_file", "edit_file"})
BYPASS = "run with --permission-mode bypass"
ACCEPT_EDITS = "run with --permission-mode accept-edits"


@dataclass(frozen=True)
class Ask:
    """The call needs a yes from the user; `hint` says how to allow it without one."""

    summary: str
    pattern: str
    hint: str
    reusable: bool = True  # False: no allow pattern answers it and "always" is not remembered


def refusal(
    name: str, args: ToolInput, ctx: ToolContext, subject: str, deny: list[str]
) -> str | None:
    """Why the call is refused in every mode, `bypass` included; None if it is not."""
    if name in EDIT_TOOLS:
        try:
            writable_path(ctx, str(getattr(args, "path", "")))
        except PathRefused as e:
            return str(e)
    if name == "bash":
        reason = denied(subject)
        if reason:
            return f"Refused: {reason} is on the deny list and never runs, in any mode."
    for pattern in deny:
        if matches(pattern, name, subject, deny=True):
            return f"Refused by the permissions.deny pattern {pattern!r} in settings."
    return None


def may_read(args: ToolInput, ctx: ToolContext, deny: list[str]) -> bool:
    """A call's path the model may read unasked: only there may a precheck tell it
    anything about the file (a deny rule hides what it covers, existence included)."""
    if not isinstance(getattr(args, "path", None), str) or reads_outside(args, ctx):
        return False
    subject = call_subject("read_file", args, ctx)
    return not any(matches(p, "read_file", subject, deny=True) for p in deny)


def by_mode(
    mode: str, tool: AnyTool, args: ToolInput, ctx: ToolContext, subject: str
) -> str | Ask | None:
    """None: allowed; a string: refused; Ask: a question."""
    name = tool.name
    if mode == "bypass":
        return None
    if getattr(tool, "asks_permission", False):  # an MCP server's tool
        if mode == "plan" and not tool.read_only:
            return plan_refusal(f"{name} (its server does not mark it read-only)")
        return Ask(name, name, BYPASS)
    outside = reads_outside(args, ctx) if tool.read_only else None
    if outside is not None:
        summary = f"{name} {outside} (outside the workspace)"
        return Ask(summary, f"{name}({folder_of(outside)}/*)", BYPASS)
    if name in EDIT_TOOLS:
        return _edit(mode, name, args, ctx, subject)
    if name == "web_fetch":  # read-only: plan mode allows it; elsewhere asked per domain
        if mode == "plan":
            return None
        url = str(getattr(args, "url", ""))
        return Ask(f"web_fetch {url}", f"web_fetch({subject})", BYPASS)
    if name == "bash":
        return _bash(mode, tool, args, ctx, subject)
    return None


def _bash(
    mode: str, tool: AnyTool, args: ToolInput, ctx: ToolContext, subject: str
) -> str | Ask | None:
    """Read-only or sandboxed: unasked; `unsandboxed` (asked for by the model) is always
    asked, and refused in plan mode, however read-only it looks: it bypasses the deny-read."""
    if getattr(args, "unsandboxed", False):
        if mode == "plan":
            return plan_refusal(f"bash {subject} outside the sandbox")
        return Ask(f"bash {subject} (outside the sandbox)", bash_pattern(subject), BYPASS)
    if is_read_only(subject, ctx.workspace):
        return None
    if mode == "plan":
        return plan_refusal(f"bash {subject}")
    unconfined = getattr(tool, "unconfined", None)
    if callable(unconfined) and not unconfined(args, ctx):
        return None
    return Ask(f"bash {subject}", bash_pattern(subject), BYPASS)


def _edit(
    mode: str, name: str, args: ToolInput, ctx: ToolContext, subject: str
) -> str | Ask | None:
    if mode == "plan":
        return plan_refusal(f"{name} {subject}")
    guarded = protected(ctx, ctx.resolve(str(getattr(args, "path", ""))))
    if guarded is not None:
        # shown as what "always" would allow: a pattern that matches no call
        once = f"nothing: {name} {subject} is asked every time"
        return Ask(f"{name} {subject} ({guarded})", once, BYPASS, reusable=False)
    if mode == "accept-edits":
        return None
    return Ask(f"{name} {subject}", name, ACCEPT_EDITS)


def plan_refusal(summary: str) -> str:
    return (
        f"Refused in plan mode (read-only tools only): {summary}. Finish the plan; to make "
        "changes the user runs with --permission-mode default or accept-edits."
    )
