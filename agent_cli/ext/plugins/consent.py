"""What a plugin runs, shown once and agreed to: the lines (`runs.what_it_runs`: hook commands,
MCP and language-server commands, the scripts its skills bundle) and the files they name are
fingerprinted; a plugin loads only while its fingerprint is the one the user agreed to.

Lines are compared with the installed copy's own folder written `${CLAUDE_PLUGIN_ROOT}` (an
update moves the copy; that alone is no change), and a file of the plugin that a line names
counts by its content: an update that rewrites `hooks/check.sh` asks again."""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.errors import AgentError, UsageError
from agent_cli.ext.plugins.store import Consent, now
from agent_cli.policy.trust import fingerprint

ROOT = "${CLAUDE_PLUGIN_ROOT}"
DATA = "${CLAUDE_PLUGIN_DATA}"
_NAMED = re.compile(r"\$\{CLAUDE_PLUGIN_ROOT\}/([^\s\"';|&()<>`$]+)")


@dataclass(frozen=True)
class Runs:
    """What one copy of a plugin runs, as shown and as fingerprinted."""

    lines: tuple[str, ...]
    files: tuple[str, ...]  # "path sha256" of each plugin file a line names

    @property
    def fingerprint(self) -> str:
        return fingerprint(*self.lines, "\0files", *self.files)

    def consent(self) -> Consent:
        return Consent(fingerprint=self.fingerprint, runs=list(self.lines), at=now())


def runs_of(lines: Sequence[str], root: Path, data: Path) -> Runs:
    """`lines` with the copy's folder and data folder written as variables, and the digests
    of the plugin files they name."""
    said = tuple(_portable(line, root, data) for line in lines)
    files = sorted(
        {f"{name} {_sha(root / name)}" for line in said for name in _NAMED.findall(line)}
    )
    return Runs(said, tuple(files))


def _portable(line: str, root: Path, data: Path) -> str:
    for folder, name in ((root, ROOT), (root.resolve(), ROOT), (data, DATA)):
        line = line.replace(str(folder), name)
    return line


def _sha(path: Path) -> str:
    try:
        if path.resolve().is_file():
            return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        pass
    return "missing"


def agreed(consent: Consent | None, runs: Runs) -> bool:
    return consent is not None and consent.fingerprint == runs.fingerprint


def shown(runs: Runs) -> list[str]:
    if not runs.lines:
        return ["  it runs nothing (no hooks, servers or skill scripts)"]
    return [f"  {line}" for line in runs.lines]


def difference(consent: Consent | None, runs: Runs) -> list[str]:
    """The lines added (+) and gone (-) since the consent; when only the content of a file
    they name changed, a line saying which."""
    before = consent.runs if consent is not None else []
    gone = [f"  - {line}" for line in before if line not in runs.lines]
    added = [f"  + {line}" for line in runs.lines if line not in before]
    if gone or added:
        return [*gone, *added]
    changed = [f.split(" ")[0] for f in runs.files]
    return [f"  ~ a file it runs changed: {', '.join(changed) or '(unknown)'}"]


def ask(question: str, yes: bool, refused: str) -> None:
    """Returns when the user agrees (`--yes`, or yes at a terminal's prompt); otherwise
    `refused` is the error: a usage error (exit 2) without a terminal to ask on, a failure
    (exit 1) when the user says no."""
    if yes:
        return
    if not sys.stdin.isatty():
        raise UsageError(f"{refused}: no terminal to ask on; pass --yes to agree to what it runs")
    import typer

    if not typer.confirm(question, default=False):
        raise AgentError(f"{refused}: you did not agree")
