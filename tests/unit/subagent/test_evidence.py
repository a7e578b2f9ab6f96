"""Evidence checking in code: the citation forms models write, each verdict against real files,
commands against what the real bash tool reported, the ledger behind the gate."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.tool_contract import AnyTool, ToolContext, ToolInput, ToolResult
from agent_cli.subagent.citation import Citation, parse
from agent_cli.subagent.evidence import QUOTE_CHARS, EvidenceChecker
from agent_cli.subagent.ledger import KEPT_OUTPUT, CallLedger, RecordingGate, exit_code_of
from agent_cli.tools.read_file import ReadFile
from agent_cli.tools.registry import ToolRegistry
from agent_cli.tools.shell.bash import Bash
from tests.sandbox_support import shell_wrapper
from tests.unit.tool_helpers import make_ctx, unconfined

LOCATION_FORMS = {
    "a.py:3": ("a.py", 3, 3),
    "a.py:3-5": ("a.py", 3, 5),
    "a.py:3\u20135": ("a.py", 3, 5),  # an en dash
    "a.py:5-3": ("a.py", 3, 5),
    "a.py:3:7": ("a.py", 3, 3),
    "a.py#L3": ("a.py", 3, 3),
    "a.py#L3-L5": ("a.py", 3, 5),
    "a.py line 3": ("a.py", 3, 3),
    "`a.py` line 3": ("a.py", 3, 3),
    "`a.py` lines 3-5": ("a.py", 3, 5),
    "a.py, line 3": ("a.py", 3, 3),
    "a.py (line 3)": ("a.py", 3, 3),
    "line 3 of a.py": ("a.py", 3, 3),
    "lines 3 to 5 in `src/a.py`": ("src/a.py", 3, 5),
    "a.py L3": ("a.py", 3, 3),
    "`src/x/core.py:140` uses the value unchecked": ("src/x/core.py", 140, 140),
    "Makefile:12": ("Makefile", 12, 12),
}


@pytest.mark.parametrize("text", LOCATION_FORMS)
def test_location_forms(text: str):
    c = parse(text)
    assert (c.kind, c.path, c.start, c.end) == ("location", *LOCATION_FORMS[text])


SNIPPETS = {
    'a.py:3 "def foo("': ("def foo(", True),
    "a.py:3 — def foo(": ("def foo(", True),  # code after a separator is a quote
    "a.py:3: `return x`": ("return x", True),
    "a.py:3 “foo(1)”": ("foo(1)", True),
    "In a.py:3 the call 'x()' fails": ("x()", True),
    "a.py:3 — defines foo": ("defines foo", False),  # words: a description
    "a.py:3 doesn't check it's value": ("doesn't check it's value", False),
}


@pytest.mark.parametrize("text", SNIPPETS)
def test_snippets_quoted_or_loose(text: str):
    c = parse(text)
    assert (c.snippet, c.quoted) == SNIPPETS[text]


COMMANDS = {
    "pytest -q → 3 passed": ("pytest -q", "3 passed"),
    "`pytest -q` -> 3 passed": ("pytest -q", "3 passed"),
    "ran `make test` (exit 0)": ("make test", "exit 0"),
    "$ ruff check: clean": ("ruff check", "clean"),
    "bash: `npm test` => ok.": ("npm test", "ok"),
}


@pytest.mark.parametrize("text", COMMANDS)
def test_command_forms(text: str):
    c = parse(text)
    assert (c.kind, c.command, c.outcome) == ("command", *COMMANDS[text])


def test_items_written_as_objects():
    assert parse('{"file": "a.py", "line": 3, "text": "def foo("}') == Citation(
        "location", "a.py", 3, 3, "def foo(", quoted=True
    )
    assert parse('{"path": "a.py", "start": 3, "end": 5, "why": "the loop"}') == Citation(
        "location", "a.py", 3, 5
    )
    assert parse('{"path": "a.py", "lines": "3-5"}') == Citation("location", "a.py", 3, 5)
    assert parse('{"path": "a.py"}') == Citation("location", "a.py")
    assert parse('{"command": "pytest -q", "exit_code": 0}') == Citation(
        "command", command="pytest -q", outcome="exit 0"
    )
    assert parse('{"finding": "no path here"}').kind == "text"
    assert parse("{not json").kind == "text"


def test_text_bare_paths_and_urls():
    assert parse("320 call sites of get()") == Citation("text", snippet="320 call sites of get()")
    assert parse("the line 3 is odd").kind == "text"
    assert parse("see https://example.com:8080/x for it").kind == "text"
    assert parse("a.py defines foo") == Citation("location", "a.py")
    assert parse("README exists", lambda p: p == "README").kind == "text"  # no dot: a word
    assert parse("setup.cfg sets it", lambda p: p == "setup.cfg").path == "setup.cfg"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("import os\r\n\r\ndef foo(x):\r\n    return x + 1\r\n")
    (ws / "blob.bin").write_bytes(b"\x00\x01\x02")
    (ws / "pkg").mkdir()
    (ws / "long.txt").write_text("x" * 500 + "\n")
    (ws / "many.txt").write_text("".join(f"line {n}\n" for n in range(1, 51)))
    return ws


def check(workspace: Path, item: str, ledger: CallLedger | None = None) -> tuple[str, str]:
    result = EvidenceChecker(workspace, ledger or CallLedger()).check(item)
    return result.verdict, result.detail


def test_location_verdicts(workspace: Path):
    assert check(workspace, 'a.py:3 "def foo("') == ("verified", "the text matches")
    assert check(workspace, "a.py:3-4 'return x + 1'") == ("verified", "the text matches")
    assert check(workspace, 'a.py:3 "def foo(...):"') == ("verified", "the text matches")
    assert check(workspace, "a.py:4 — return  x+1") == (
        "differs",
        "the cited text is not there; it is nowhere in the file",
    )
    assert check(workspace, 'a.py:1 "def foo("') == (
        "differs",
        "the cited text is not there; it is at line 3",
    )
    assert check(workspace, 'a.py:3 "     3\tdef foo(x):"') == ("verified", "the text matches")
    assert check(workspace, "a.py:3 `3: def foo(x):`") == ("verified", "the text matches")
    assert check(workspace, "a.py:5") == ("not found", "line 5 cited; a.py has 4 lines")
    assert check(workspace, "a.py:0") == ("not found", "line 0 cited; a.py has 4 lines")
    assert check(workspace, "a.py:3-9") == ("not found", "lines 3-9 cited; a.py has 4 lines")
    assert check(workspace, "gone.py:1") == ("not found", "no such file: gone.py")
    assert check(workspace, "pkg:1") == ("not found", "pkg is a directory")
    assert check(workspace, "blob.bin:1") == ("not checkable", "blob.bin is not a text file")
    os.mkfifo(workspace / "pipe.txt")  # reading it would block the runner forever
    assert check(workspace, "pipe.txt:1") == ("not checkable", "pipe.txt is not a file")
    assert check(workspace, "gone.py shows it") == ("not found", "no such file: gone.py")
    assert check(workspace, "a.py defines foo") == (
        "verified",
        "file exists; words not compared",
    )


def test_quotes_are_capped_and_carry_line_numbers(workspace: Path):
    checker = EvidenceChecker(workspace, CallLedger())
    assert checker.check("a.py:3").quote == ["3 | def foo(x):"]  # the \r of CRLF is not shown
    (quote,) = checker.check("long.txt:1").quote
    assert len(quote) == QUOTE_CHARS
    assert quote.endswith("…")
    assert checker.check("many.txt:10-50").quote == [
        "10 | line 10",
        "11 | line 11",
        "… 39 more lines",
    ]
    assert checker.check('many.txt:10-50 "line 42"').quote == ["42 | line 42"]


def test_outside_the_workspace_is_never_read(workspace: Path):
    outside = workspace.parent / "secret.txt"
    outside.write_text("SECRET\n")
    (workspace / "link.txt").symlink_to(outside)
    for item in ("link.txt:1", "../secret.txt:1", f"{outside}:1"):
        result = EvidenceChecker(workspace, CallLedger()).check(item)
        assert result.verdict == "not checkable", item
        assert result.quote == []


def test_a_path_that_cannot_be_resolved_is_not_checkable(workspace: Path):
    checker = EvidenceChecker(workspace, CallLedger())
    for result in (checker.check_ref("bad\0name"), checker.check("~nosuchuser-x/a.py:1")):
        assert result.verdict == "not checkable"
        assert result.detail.startswith("the path cannot be resolved: ")


def test_refs_outside_the_workspace_are_checked_for_existence_only(workspace: Path):
    log = workspace.parent / "state" / "n.log"
    log.parent.mkdir()
    log.write_text("x\n")
    checker = EvidenceChecker(workspace, CallLedger())
    assert checker.check_ref(str(log)).verdict == "verified"
    assert checker.check_ref("pkg").verdict == "verified"
    assert checker.check_ref("nowhere").verdict == "not found"
    assert checker.check_ref("a.py#L9").detail == "line 9 cited; a.py has 4 lines"


def test_secrets_never_reach_a_check(workspace: Path):
    (workspace / "env.txt").write_text("KEY=sk-secret-123\n")
    result = EvidenceChecker(workspace, CallLedger(), ("sk-secret-123",)).check(
        'env.txt:1 "sk-secret-123"'
    )
    assert result.verdict == "verified"
    assert "sk-secret-123" not in result.model_dump_json()


def bash(workspace: Path, command: str) -> ToolResult:
    """Unsandboxed: inside bubblewrap a signal's death comes back as exit code 128+n."""
    tool = Bash(shell_wrapper=shell_wrapper)
    ctx = make_ctx(workspace, unconfined())
    return asyncio.run(tool.run(tool.input_model(command=command), ctx))


def test_the_exit_status_is_read_from_the_real_bash_result(workspace: Path):
    assert exit_code_of(bash(workspace, "echo hi").content) == 0
    assert exit_code_of(bash(workspace, "exit 7").content) == 7
    assert exit_code_of(bash(workspace, "kill -9 $$").content) == -9
    timed_out = asyncio.run(
        Bash(shell_wrapper=shell_wrapper).run(
            Bash.input_model(command="sleep 5", timeout_s=0.2), make_ctx(workspace, unconfined())
        )
    )
    ledger = CallLedger()
    ledger.record("bash", {"command": "sleep 5"}, timed_out)
    assert (ledger.calls[0].exit_code, ledger.calls[0].outcome) == (None, "timed out")


def test_a_long_output_keeps_its_head_and_tail(workspace: Path):
    ledger = CallLedger()
    command = "seq 1 100000; echo '7 passed'"
    ledger.record("bash", {"command": command}, bash(workspace, command))
    (call,) = ledger.calls
    assert len(call.output) < 2 * KEPT_OUTPUT + 10
    assert call.output.startswith("1\n2\n")
    assert check(workspace, f"`{command}` → 7 passed", ledger) == ("verified", "ran: exit 0")


def test_command_verdicts_against_the_ledger(workspace: Path):
    ledger = CallLedger()
    for command in ("printf '5 passed, 1 warning\\n'", "false", "cd sub 2>/dev/null; make"):
        ledger.record("bash", {"command": command}, bash(workspace, command))
    assert check(workspace, "`printf '5 passed, 1 warning\\n'` → 5 passed", ledger)[0] == "verified"
    assert check(workspace, "printf '5 passed, 1 warning\\n' → 6 passed", ledger) == (
        "differs",
        "it ran with exit 0, not “6 passed”",
    )
    assert check(workspace, "false → exit 1", ledger) == ("verified", "ran: exit 1")
    assert check(workspace, "false → ok", ledger)[0] == "differs"
    assert check(workspace, "false → fails", ledger)[0] == "verified"
    assert check(workspace, "make → exit 0", ledger)[0] == "differs"  # part of a longer command
    assert check(workspace, "printf '5 passed, 1 warning\\n' → 5 passed, 1 warning", ledger)[0] == (
        "verified"
    )
    assert check(workspace, "`printf '5 passed, 1 warning\\n'` → 15 passed", ledger)[0] == (
        "differs"  # whole words: "5 passed" is in the output, "15 passed" is not
    )
    assert check(workspace, "mak → exit 2", ledger)[1] == "this subagent never ran `mak`"
    assert check(workspace, "pytest → 3 passed", ledger) == (
        "not checkable",
        "this subagent never ran `pytest`",
    )


class Deny:
    async def before(self, tool: AnyTool, args: ToolInput, ctx: ToolContext) -> str | None:
        return "denied" if tool.name == "bash" else None

    async def after(self, tool: AnyTool, args: ToolInput, result: Any, ctx: ToolContext) -> None:
        return None


def test_the_gate_records_what_ran_and_nothing_it_refused(workspace: Path):
    ledger = CallLedger()
    registry = ToolRegistry(
        [ReadFile(), Bash(shell_wrapper=shell_wrapper)], RecordingGate(Deny(), ledger)
    )
    ctx = make_ctx(workspace)

    async def calls() -> None:
        await registry.dispatch("read_file", {"path": "a.py"}, ctx)
        await registry.dispatch("read_file", {"path": "nope.py"}, ctx)
        await registry.dispatch("read_file", {"path": 3}, ctx)  # invalid: never ran
        await registry.dispatch("bash", {"command": "echo hi"}, ctx)  # denied: never ran

    asyncio.run(calls())
    assert [(c.name, c.is_error) for c in ledger.calls] == [
        ("read_file", False),
        ("read_file", True),
    ]
    assert ledger.files_read(ctx) == [(workspace / "a.py").resolve()]
    assert ledger.commands() == []


def test_a_bug_in_the_checks_still_leaves_a_marked_note(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
):
    from agent_cli.core.payloads import Note
    from agent_cli.subagent.note import NoteBody
    from agent_cli.subagent.review import UNCHECKED, reviewed

    def broken(self: EvidenceChecker, item: str) -> None:
        raise KeyError("bug")

    monkeypatch.setattr(EvidenceChecker, "check", broken)
    body = NoteBody(conclusion="c", evidence=["a.py:1"], confidence="high")
    fields = {"id": "n", "session_id": "s", "description": "d", "task": "t", "log_path": "n.log"}
    note = Note(
        **fields, status="completed", conclusion="c", evidence=["a.py:1"], confidence="high"
    )
    checked = reviewed(note, body, CallLedger(), make_ctx(workspace))
    assert (checked.marks, checked.confidence, checked.stated_confidence) == (
        [UNCHECKED],
        "low",
        "high",
    )


HOSTILE = {"a" * 20_000: "text", "a." * 10_000: "text", "a.py line " * 2_000: "location"}


@pytest.mark.parametrize("hostile", HOSTILE)
def test_a_huge_item_is_read_without_runaway_backtracking(hostile: str):
    """A nested pattern once took minutes on 1,000 letters; the suite's timeout would catch it."""
    assert parse(hostile).kind == HOSTILE[hostile]
