"""What a subagent's tools really did, recorded as they ran: what its note is checked against.

`RecordingGate` wraps the parent's gate for one subagent run: every call the gate let through and
that finished is recorded in the run's `CallLedger` with the tool's own result, whole and before
any preview or redaction (it stays in memory; only checked figures and short quotes leave it;
of a command's output its first and last 32,000 characters are kept).
A call the gate denied, or that failed validation, never ran and is not recorded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_cli.core.tool_contract import AnyTool, Gate, ToolContext, ToolInput, ToolResult

# the last line bash's result ends with (tools/shell/bash.py `_result`)
_EXIT = re.compile(r"(?:^|\n)exit code: (-?\d+)\s*$")
_SIGNAL = re.compile(r"(?:^|\n)killed by signal (\d+)\s*$")
_TIMED_OUT = "Command timed out after"
KEPT_OUTPUT = 32_000  # characters of a command's output kept from each end


@dataclass(frozen=True)
class LoggedCall:
    name: str
    args: dict[str, Any]
    output: str
    is_error: bool
    exit_code: int | None = None  # bash only: None when it timed out

    @property
    def command(self) -> str:
        return str(self.args.get("command", ""))

    @property
    def outcome(self) -> str:
        """'exit 0', 'killed by signal 9' or 'timed out'."""
        if self.exit_code is None:
            return "timed out" if _TIMED_OUT in self.output else "no exit status"
        if self.exit_code < 0:
            return f"killed by signal {-self.exit_code}"
        return f"exit {self.exit_code}"


def exit_code_of(output: str) -> int | None:
    """The exit status bash reported at the end of its result (a signal as its negative)."""
    tail = output[-200:]
    if match := _EXIT.search(tail):
        return int(match.group(1))
    if match := _SIGNAL.search(tail):
        return -int(match.group(1))
    return None


@dataclass
class CallLedger:
    calls: list[LoggedCall] = field(default_factory=list)

    def record(self, name: str, args: dict[str, Any], result: ToolResult) -> None:
        """Only a command's output is kept (its outcome is checked), at most its head and tail."""
        if name != "bash":
            self.calls.append(LoggedCall(name, args, "", result.is_error))
            return
        text = result.content
        if len(text) > 2 * KEPT_OUTPUT:
            text = f"{text[:KEPT_OUTPUT]}\n…\n{text[-KEPT_OUTPUT:]}"
        code = exit_code_of(result.content)
        self.calls.append(LoggedCall(name, args, text, result.is_error, code))

    def commands(self) -> list[LoggedCall]:
        return [c for c in self.calls if c.name == "bash"]

    def files_read(self, ctx: ToolContext) -> list[Path]:
        """Files a successful read_file showed, in first-read order."""
        seen: dict[Path, None] = {}
        for call in self.calls:
            if call.name == "read_file" and not call.is_error and "path" in call.args:
                seen.setdefault(ctx.resolve(str(call.args["path"])), None)
        return list(seen)


class RecordingGate:
    """The parent's gate (permissions, hooks), unchanged, with each finished call recorded."""

    def __init__(self, inner: Gate, ledger: CallLedger, skip: tuple[str, ...] = ()) -> None:
        self._inner = inner
        self._ledger = ledger
        self._skip = skip

    async def before(self, tool: AnyTool, args: ToolInput, ctx: ToolContext) -> str | None:
        return await self._inner.before(tool, args, ctx)

    async def after(
        self, tool: AnyTool, args: ToolInput, result: ToolResult, ctx: ToolContext
    ) -> None:
        if tool.name not in self._skip:
            self._ledger.record(tool.name, args.model_dump(), result)
        await self._inner.after(tool, args, result, ctx)
