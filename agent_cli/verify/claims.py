"""Claims in an answer ("All tests pass.", "the build succeeds") and whether the ledger backs
them: a claim is verified only by a matching command that exited 0 after the last change."""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from agent_cli.verify.ledger import EvidenceLedger, LedgerCommand

Kind = Literal["tests", "build", "typecheck", "lint"]

# What counts as a run of each kind: a command whose words hold one of these (in order).
# `verify.commands` in settings adds to a kind, it never takes away.
COMMANDS: dict[Kind, tuple[str, ...]] = {
    "tests": (
        "pytest", "python -m pytest", "python -m unittest", "tox", "nox", "go test",
        "cargo test", "npm test", "npm run test", "yarn test", "pnpm test", "jest", "vitest",
        "mocha", "make test", "make check", "ctest", "mvn test", "gradle test", "rspec",
    ),
    "build": (
        "make", "cargo build", "go build", "npm run build", "yarn build", "pnpm build",
        "python -m build", "mvn package", "gradle build", "cmake --build", "tsc", "gcc", "cc",
    ),
    "typecheck": ("mypy", "pyright", "tsc", "go vet", "cargo check", "flow", "pytype"),
    "lint": ("ruff", "flake8", "pylint", "eslint", "golangci-lint", "cargo clippy", "shellcheck"),
}  # fmt: skip

_PASS = r"(pass(es|ed|ing)?|succeed(s|ed)?|green|clean|compiles?|works?|(is|are) fine|ok)\b"
_SUBJECTS: dict[Kind, str] = {
    "tests": r"\b(all\s+)?(\d+\s+)?(unit\s+|e2e\s+)?tests?\b(\s+suite)?",
    "build": r"\b(the\s+)?build\b|\bit\s+compiles\b",
    "typecheck": r"\b(type[\s-]?check(s|ing|er)?|mypy|pyright|types?)\b",
    "lint": r"\b(lint(s|ing|er)?|ruff|flake8|eslint)\b",
}
_CLAIM = {
    kind: re.compile(rf"({subject})[^.!?\n]{{0,40}}?\b{_PASS}", re.IGNORECASE)
    for kind, subject in _SUBJECTS.items()
}
_NEGATED = re.compile(r"\b(not|n't|fail\w*|never|no longer)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")


@dataclass(frozen=True)
class Claim:
    text: str
    kind: Kind
    verified: bool
    evidence: str  # the run that decides it, or why there is none

    def as_json(self) -> dict[str, object]:
        return {"text": self.text, "kind": self.kind, "verified": self.verified,
                "evidence": self.evidence}  # fmt: skip

    def mark(self) -> str:
        return f"{'✓' if self.verified else '✗'} {self.kind}: {self.text} — {self.evidence}"


def find_claims(answer: str) -> list[tuple[str, Kind]]:
    """The sentences that say some kind passes, with the kind; a negated one is no claim."""
    found: list[tuple[str, Kind]] = []
    for sentence in (s.group(0).strip() for s in _SENTENCE.finditer(answer)):
        for kind, pattern in _CLAIM.items():
            hit = pattern.search(sentence)
            if hit and not _NEGATED.search(hit.group(0)):
                found.append((sentence, kind))
    return found


def table(extra: Mapping[str, Sequence[str]] | None = None) -> dict[str, tuple[str, ...]]:
    merged: dict[str, tuple[str, ...]] = {str(k): v for k, v in COMMANDS.items()}
    for kind, commands in (extra or {}).items():
        merged[kind] = merged.get(kind, ()) + tuple(commands)
    return merged


def matches(command: str, patterns: Sequence[str]) -> bool:
    """Whether a pattern's words run in order inside one of the command's pipeline parts."""
    for part in re.split(r"&&|\|\||;|\|", command):
        try:
            words = shlex.split(part)
        except ValueError:
            words = part.split()
        words = [w.rsplit("/", 1)[-1] for w in words]  # .venv/bin/pytest is pytest
        for pattern in patterns:
            want = [w.rsplit("/", 1)[-1] for w in pattern.split()]
            if any(words[i : i + len(want)] == want for i in range(len(words))):
                return True
    return False


def check(
    answer: str, ledger: EvidenceLedger, extra: Mapping[str, Sequence[str]] | None = None
) -> list[Claim]:
    commands = table(extra)
    return [_judge(text, kind, ledger, commands[kind]) for text, kind in find_claims(answer)]


def _judge(text: str, kind: Kind, ledger: EvidenceLedger, patterns: Sequence[str]) -> Claim:
    runs = [run for run in ledger.commands if matches(run.command, patterns)]
    if not runs:
        return Claim(text, kind, False, f"no {kind} command was run")
    last = runs[-1]
    if last.seq < ledger.last_change:
        return Claim(text, kind, False, f"`{last.command}` ran before the last edit")
    if last.exit_code != 0:
        return Claim(text, kind, False, f"`{last.command}` {_ended(last)}")
    return Claim(text, kind, True, f"`{last.command}` exited 0 at {_clock(last)}")


def _ended(run: LedgerCommand) -> str:
    return "timed out" if run.exit_code is None else f"exited {run.exit_code} at {_clock(run)}"


def _clock(run: LedgerCommand) -> str:
    return time.strftime("%H:%M:%S", time.localtime(run.at))
