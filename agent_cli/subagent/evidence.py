"""Checking a note's evidence against the workspace and the subagent's own tool calls, in code.

Each item gets a verdict: `verified` (the lines exist, a quoted snippet matches them, a cited
command ran with the stated outcome), `not found` (no such file or lines), `differs` (the file's
lines or the command's outcome are not what the note says) or `not checkable` (a data point no
code can check, a file outside the workspace, a command this run never ran). The cited lines are
quoted into the check, short and capped, so the parent reads the actual text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from agent_cli.core.payloads import QUOTE_LINES, CitationKind, EvidenceCheck, Verdict
from agent_cli.core.text.redaction import redact
from agent_cli.subagent.citation import Citation, parse
from agent_cli.subagent.ledger import CallLedger, LoggedCall
from agent_cli.tools.read_file import split_lines

# a verified check whose detail says all there is to say (others carry a caveat the parent sees)
MATCHED, LINES_EXIST = "the text matches", "the lines exist"

QUOTE_CHARS = 100
MAX_FILE_BYTES = 2_000_000
_EXPECTED_EXIT = re.compile(
    r"\b(?:exit(?:\s*code|\s*status)?|rc|returned?|status)\s*[=:]?\s*(-?\d+)\b", re.IGNORECASE
)
# a snippet copied with read_file's numbering: "     3\tdef foo(" or "3: def foo("
_LINE_NUMBER = re.compile(r"^\s*\d+(?:\t|\s*[|:→]\s*)")
_SUCCESS = {"ok", "clean", "success", "succeeded", "passed", "passes", "pass", "no errors", "green"}
_FAILURE = {"fails", "failed", "failure", "error", "errors", "red"}


def _norm(text: str) -> str:
    return " ".join(text.split())


def _contains(haystack: str, snippet: str) -> bool:
    """`snippet` in `haystack`, whitespace-insensitive; `…` or `...` stands for any text."""
    position = 0
    flat = _norm(haystack)
    for part in re.split(r"\s*(?:…|\.\.\.)\s*", _norm(snippet)):
        if not part:
            continue
        found = flat.find(part, position)
        if found < 0:
            return False
        position = found + len(part)
    return True


def _cut(text: str, limit: int) -> str:
    text = text.rstrip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class EvidenceChecker:
    workspace: Path
    ledger: CallLedger
    secrets: tuple[str, ...] = ()
    _files: dict[Path, list[str] | str] = field(default_factory=dict)

    def check(self, item: str) -> EvidenceCheck:
        try:
            citation = parse(item, self._exists)
            if citation.kind == "location":
                return self._location(item, citation, inside_only=True)
        except (OSError, ValueError, RuntimeError) as e:  # a NUL in a path, an unknown ~user
            return self._unresolvable(item, e)
        if citation.kind == "command":
            return self._command(item, citation)
        return self._result(
            item, "text", "not checkable", "a data point, not a file line or command"
        )

    def check_ref(self, ref: str) -> EvidenceCheck:
        try:
            citation = parse(ref, self._exists)
            if citation.kind != "location":
                citation = Citation("location", ref.strip().strip("`"))
            return self._location(ref, citation, inside_only=False)
        except (OSError, ValueError, RuntimeError) as e:
            return self._unresolvable(ref, e)

    def _unresolvable(self, item: str, error: Exception) -> EvidenceCheck:
        return self._result(
            item, "location", "not checkable", f"the path cannot be resolved: {error}"
        )

    # -- locations -------------------------------------------------------------------------

    def _resolve(self, path: str) -> Path:
        p = Path(path).expanduser()
        return (p if p.is_absolute() else self.workspace / p).resolve()

    def _exists(self, path: str) -> bool:
        try:
            return self._resolve(path).is_file()
        except (OSError, ValueError, RuntimeError):
            return False

    def _inside(self, path: Path) -> bool:
        return path.is_relative_to(self.workspace.resolve())

    def _lines(self, path: Path) -> list[str] | str:
        """The file's lines, or why they cannot be read; read once per check pass."""
        if path not in self._files:
            try:
                if path.stat().st_size > MAX_FILE_BYTES:
                    self._files[path] = "too large to check"
                else:
                    data = path.read_bytes()
                    self._files[path] = (
                        "not a text file" if b"\0" in data else split_lines(data.decode("utf-8"))
                    )
            except UnicodeDecodeError:
                self._files[path] = "not a text file"
            except OSError as e:
                self._files[path] = f"unreadable ({e.strerror or type(e).__name__})"
        return self._files[path]

    def _location(self, item: str, c: Citation, inside_only: bool) -> EvidenceCheck:
        full = self._resolve(c.path)
        if inside_only and not self._inside(full):
            return self._result(
                item, "location", "not checkable", f"{c.path} is outside the workspace"
            )
        if not full.exists():
            return self._result(item, "location", "not found", f"no such file: {c.path}")
        if c.start is None and not c.snippet:
            detail = "file exists; words not compared"
            return self._result(item, "location", "verified", detail)
        if full.is_dir():
            return self._result(item, "location", "not found", f"{c.path} is a directory")
        if not full.is_file():  # a FIFO or a device would block or never end
            return self._result(item, "location", "not checkable", f"{c.path} is not a file")
        if not self._inside(full):
            return self._result(
                item, "location", "verified", f"{c.path} exists (outside the workspace)"
            )
        lines = self._lines(full)
        if isinstance(lines, str):
            return self._result(item, "location", "not checkable", f"{c.path} is {lines}")
        start = 1 if c.start is None else c.start
        end = len(lines) if c.end is None else c.end
        if start < 1 or end > len(lines):
            cited = f"line {start}" if start == end else f"lines {start}-{end}"
            return self._result(
                item, "location", "not found", f"{cited} cited; {c.path} has {len(lines)} lines"
            )
        return self._compare(item, c, lines, start, end)

    def _compare(
        self, item: str, c: Citation, lines: list[str], start: int, end: int
    ) -> EvidenceCheck:
        numbered = list(enumerate(lines[start - 1 : end], start=start))
        if not c.snippet:
            return self._result(item, "location", "verified", LINES_EXIST, self._quote(numbered))
        snippet = _LINE_NUMBER.sub("", c.snippet, count=1) if start == end else c.snippet
        hits = [(n, line) for n, line in numbered if _contains(line, snippet)]
        if hits or _contains("\n".join(lines[start - 1 : end]), snippet):
            return self._result(
                item, "location", "verified", MATCHED, self._quote(hits or numbered)
            )
        if not c.quoted:  # words beside the location: a description, not a quote
            detail = "lines exist; words not compared"
            return self._result(item, "location", "verified", detail, self._quote(numbered))
        elsewhere = [n for n, line in enumerate(lines, start=1) if _contains(line, c.snippet)]
        detail = "the cited text is not there" + (
            f"; it is at line {elsewhere[0]}" if elsewhere else "; it is nowhere in the file"
        )
        return self._result(item, "location", "differs", detail, self._quote(numbered))

    def _quote(self, numbered: list[tuple[int, str]]) -> list[str]:
        quote = [_cut(f"{n} | {line}", QUOTE_CHARS) for n, line in numbered[:QUOTE_LINES]]
        if len(numbered) > QUOTE_LINES:
            quote.append(f"… {len(numbered) - QUOTE_LINES} more lines")
        return quote

    # -- commands --------------------------------------------------------------------------

    def _command(self, item: str, c: Citation) -> EvidenceCheck:
        runs = [r for r in self.ledger.commands() if _same_command(c.command, r.command)]
        if not runs:
            ran = "ran no commands" if not self.ledger.commands() else f"never ran `{c.command}`"
            return self._result(item, "command", "not checkable", f"this subagent {ran}")
        for run in reversed(runs):
            if _outcome_holds(c.outcome, run):
                return self._result(item, "command", "verified", f"ran: {run.outcome}", _tail(run))
        last = runs[-1]
        detail = f"it ran with {last.outcome}, not “{c.outcome}”"
        return self._result(item, "command", "differs", detail, _tail(last))

    def _result(
        self,
        item: str,
        kind: CitationKind,
        verdict: Verdict,
        detail: str,
        quote: tuple[str, ...] | list[str] = (),
    ) -> EvidenceCheck:
        clean = [redact(q, self.secrets) for q in quote]
        return EvidenceCheck(
            item=redact(item, self.secrets),
            kind=kind,
            verdict=verdict,
            detail=_cut(redact(detail, self.secrets), 200),
            quote=clean,
        )


def _within(part: list[str], whole: list[str]) -> bool:
    return any(whole[i : i + len(part)] == part for i in range(len(whole) - len(part) + 1))


def _same_command(claimed: str, logged: str) -> bool:
    """Word for word, or one is a run of whole words of the other (`cd x && pytest -q` ran
    `pytest -q`); `ls` is not found inside `--cov=tools`."""
    a, b = claimed.split(), logged.split()
    return bool(a and b) and (_within(a, b) or _within(b, a))


def _says(output: str, words: str) -> bool:
    """`words` in `output` as whole words ("3 passed" is not in "13 passed")."""
    return re.search(rf"(?<!\w){re.escape(_norm(words))}(?!\w)", _norm(output)) is not None


def _outcome_holds(outcome: str, run: LoggedCall) -> bool:
    if not outcome:
        return True
    if match := _EXPECTED_EXIT.search(outcome):
        return run.exit_code == int(match.group(1))
    words = outcome.lower().strip(" .!")
    if _says(run.output.lower(), words):
        return True
    if words in _SUCCESS:
        return run.exit_code == 0
    if words in _FAILURE:
        return run.exit_code not in (0, None)
    return False


def _tail(run: LoggedCall) -> list[str]:
    """The outcome and the last line of output before bash's exit line."""
    body = [line for line in split_lines(run.output) if line.strip()]
    if body and body[-1].startswith(("exit code:", "killed by signal")):
        body.pop()
    quote = [_cut(f"$ {_norm(run.command)} → {run.outcome}", QUOTE_CHARS)]
    if body:
        quote.append(_cut(body[-1], QUOTE_CHARS))
    return quote
