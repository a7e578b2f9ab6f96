"""A diagnostic as the model reads it: `path:line:col severity message (source)`, errors first
and new ones before those the file already had, capped in count and bytes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel

Severity = Literal["error", "warning", "info", "hint"]
SEVERITIES: dict[int, Severity] = {1: "error", 2: "warning", 3: "info", 4: "hint"}


class Diagnostic(BaseModel, frozen=True):
    line: int  # 1-based, as editors and the model count
    col: int
    severity: Severity
    message: str
    source: str

    def shown(self, path: str) -> str:
        message = " ".join(self.message.split())
        return f"{path}:{self.line}:{self.col} {self.severity} {message} ({self.source})"


def from_lsp(item: Any, server: str) -> Diagnostic | None:
    """An LSP Diagnostic object; None for what is not one (a server's garbage is skipped)."""
    if not isinstance(item, dict):
        return None
    start = (item.get("range") or {}).get("start") if isinstance(item.get("range"), dict) else None
    message = item.get("message")
    if not isinstance(start, dict) or not isinstance(message, str):
        return None
    line, col = start.get("line"), start.get("character")
    if not isinstance(line, int) or not isinstance(col, int):
        return None
    severity = SEVERITIES.get(item.get("severity") or 1, "error")
    source = item.get("source") if isinstance(item.get("source"), str) else server
    return Diagnostic(line=line + 1, col=col + 1, severity=severity, message=message, source=source)


def kept(found: Sequence[Diagnostic], warnings: bool) -> list[Diagnostic]:
    """Errors, and warnings too when asked for (`lsp.warnings`)."""
    return [d for d in found if d.severity == "error" or (warnings and d.severity == "warning")]


def shown_lines(
    path: str,
    found: Sequence[Diagnostic],
    before: Sequence[Diagnostic],
    warnings: bool,
    max_count: int,
    max_bytes: int,
) -> tuple[list[str], int]:
    """The lines to show and how many diagnostics there were in all (after the severity cut).
    New ones first: what this edit broke matters more than what was broken before."""
    shown = kept(found, warnings)
    old = {(d.message, d.severity) for d in before}
    order = sorted(shown, key=lambda d: ((d.message, d.severity) in old, d.severity != "error"))
    lines: list[str] = []
    size = 0
    for diagnostic in order[:max_count]:
        line = diagnostic.shown(path)
        if size + len(line) + 1 > max_bytes:
            break
        lines.append(line)
        size += len(line) + 1
    if len(lines) < len(order):
        lines.append(f"… {len(order) - len(lines)} more (the diagnostics tool lists them all)")
    return lines, len(shown)
