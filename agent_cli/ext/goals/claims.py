"""Claims in an answer ("All tests pass.", "the build succeeds") and whether the ledger backs
them: a claim is verified only by a matching command that exited 0 after the last change."""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from agent_cli.core.verify_events import ClaimMark, ClaimsChecked
from agent_cli.ext.goals.ledger import EvidenceLedger, LedgerCommand

Kind = Literal["tests", "build", "typecheck", "lint"]

# What counts as a run of each kind: a command whose program is one of these (its words first,
# in order), also behind a wrapper (uv run, poetry run, env, timeout...) or as `python -m`.
# `verify.commands` in settings adds to a kind, it never takes away.
COMMANDS: dict[Kind, tuple[str, ...]] = {
    "tests": (
        "pytest", "python -m pytest", "python -m unittest", "tox", "nox", "hatch test", "go test",
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

_SEPARATORS = frozenset(";&|()\n")  # tokens of only these end a simple command
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_INTERPRETER = re.compile(r"(python|pypy)(\d+(\.\d+)*t?)?(\.exe)?")
_SHELLS = frozenset({"sh", "bash", "zsh", "dash"})
_KEYWORDS = frozenset({"!", "{", "}", "then", "do", "else", "exec", "command", "builtin"})
# Words that run the command after them (its options and their values between).
_WRAPPERS = tuple(tuple(w.split()) for w in (
    "uv run", "uvx", "poetry run", "hatch run", "hatch env run", "pipx run", "pdm run",
    "rye run", "pixi run", "conda run", "micromamba run", "bundle exec", "pnpm exec", "npx",
    "bunx", "env", "time", "nice", "nohup", "timeout", "stdbuf", "xvfb-run", "xargs", "sudo",
    "sh", "bash", "zsh", "dash",
))  # fmt: skip

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
    """Whether one of the command's programs is a pattern's: its words begin where a program
    does, in any part of a pipeline or list, `sh -c` strings included (`pip install pytest` and
    `echo pytest` are no runs of pytest)."""
    wanted = [w for w in ([_name(word) for word in p.split()] for p in patterns) if w]
    return any(
        start[: len(want)] == want
        for words in _commands(command)
        for start in _starts([_name(w) for w in words])
        for want in wanted
    )


def _commands(command: str, depth: int = 0) -> Iterator[list[str]]:
    """The words of each simple command: `a && b; (c | d)`, and what `bash -c '...'` runs."""
    words: list[str] = []
    for token in [*_tokens(command), ";"]:
        if token and set(token) <= _SEPARATORS:
            if words:
                yield words
                rest = _program(words)
                shell = _name(rest[0]) if rest else ""
                if depth < 3 and shell in _SHELLS and len(rest) > 2 and rest[1] == "-c":
                    yield from _commands(rest[2], depth + 1)
            words = []
        else:
            words.append(token)


def _tokens(command: str) -> list[str]:
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>\n")
        lexer.whitespace, lexer.whitespace_split = " \t\r", True
        return list(lexer)
    except ValueError:  # unbalanced quotes: plain words
        return re.findall(r"[;&|()\n]+|[^\s;&|()]+", command)


def _name(word: str) -> str:
    """A word as its program's name: .venv/bin/python3.12 is python, py.test is pytest."""
    if _ASSIGN.match(word):
        return word
    name = word.rsplit("/", 1)[-1]
    if _INTERPRETER.fullmatch(name):
        return "python"
    return "pytest" if name == "py.test" else name


def _starts(words: list[str]) -> Iterator[list[str]]:
    """Where the program may begin: after `FOO=1`s, anywhere after a wrapper (`uv run`, `env`,
    `timeout 60`...), and the module of `python [-X dev] -m mod` as a program itself."""
    rest = _program(words)
    yield from _as_program(rest)
    for wrapper in _WRAPPERS:
        if tuple(rest[: len(wrapper)]) == wrapper:
            for at in range(len(wrapper), len(rest)):
                yield from _as_program(_program(rest[at:]))
            return


def _program(words: list[str]) -> list[str]:
    at = 0
    while at < len(words) and (_ASSIGN.match(words[at]) or words[at] in _KEYWORDS):
        at += 1
    return words[at:]


def _as_program(words: list[str]) -> Iterator[list[str]]:
    yield words
    if words[:2] == ["coverage", "run"]:  # coverage run [-m] x: python [-m] x, measured
        words = ["python", *words[2:]]
    module = _module(words) if words[:1] == ["python"] else None
    if module and module[:2] == ["coverage", "run"]:
        module = _module(["python", *module[2:]]) or module[2:]
    if module:
        yield ["python", "-m", *module]
        yield module


def _module(words: list[str]) -> list[str] | None:
    """`python [-X dev -u ...] -m mod args`: [mod, args]; None for a script or `-c`."""
    at = 1
    while at < len(words) and words[at].startswith("-") and words[at] != "-m":
        at += 2 if words[at] in ("-X", "-W") else 1
    return words[at + 1 :] if words[at : at + 1] == ["-m"] else None


def check(
    answer: str, ledger: EvidenceLedger, extra: Mapping[str, Sequence[str]] | None = None
) -> list[Claim]:
    commands = table(extra)
    return [_judge(text, kind, ledger, commands[kind]) for text, kind in find_claims(answer)]


def claims_checked(
    answer: str, ledger: EvidenceLedger, extra: Mapping[str, Sequence[str]]
) -> ClaimsChecked | None:
    """The answer's claims marked, as the event told just before its turn's end."""
    marks = [ClaimMark(**c.as_json()) for c in check(answer, ledger, extra)]
    return ClaimsChecked(claims=marks) if marks else None


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
