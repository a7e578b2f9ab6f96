"""The claims checker on a ledger fed with the loop's own typed events (in-process)."""

from __future__ import annotations

from agent_cli.core.events import FilesChanged, ToolEnd, ToolStart
from agent_cli.ext.goals.claims import check, find_claims
from agent_cli.ext.goals.ledger import EvidenceLedger, exit_code_of

_ids = iter(range(1000))


def bash(ledger: EvidenceLedger, command: str, code: int, text: str = "") -> None:
    """The bash tool's events for one call, its result written as the tool writes it."""
    tid = f"toolu_{next(_ids)}"
    ledger.feed(ToolStart(id=tid, name="bash", input={"command": command}))
    body = f"{text}\n\nexit code: {code}" if text else f"exit code: {code}"
    summary = f"bash {command} → exit {code}"
    ledger.feed(ToolEnd(id=tid, name="bash", is_error=code != 0, summary=summary, output=body))


def edit(ledger: EvidenceLedger, path: str = "calc.py") -> None:
    tid = f"toolu_{next(_ids)}"
    ledger.feed(ToolStart(id=tid, name="edit_file", input={"path": path}))
    ledger.feed(ToolEnd(id=tid, name="edit_file", is_error=False, summary=f"edit_file {path}"))


def test_a_failed_pytest_run_is_the_evidence_against_all_tests_pass() -> None:
    ledger = EvidenceLedger()
    bash(ledger, "python -m pytest -q", 1, "1 failed, 3 passed")
    [claim] = check("I fixed it. All tests pass.", ledger)
    assert (claim.text, claim.kind, claim.verified) == ("All tests pass.", "tests", False)
    assert "python -m pytest -q" in claim.evidence
    assert "exited 1" in claim.evidence


def test_a_later_passing_run_verifies_it() -> None:
    ledger = EvidenceLedger()
    bash(ledger, "python -m pytest -q", 1)
    edit(ledger)
    bash(ledger, ".venv/bin/pytest tests", 0, "4 passed")
    [claim] = check("All tests pass.", ledger)
    assert claim.verified
    assert "`.venv/bin/pytest tests` exited 0" in claim.evidence


def test_a_passing_run_followed_by_an_edit_is_not_verified() -> None:
    ledger = EvidenceLedger()
    bash(ledger, "pytest", 0)
    edit(ledger)
    [claim] = check("All tests pass.", ledger)
    assert not claim.verified
    assert "before the last edit" in claim.evidence


def test_a_change_only_the_checkpoint_saw_also_outdates_the_run() -> None:
    ledger = EvidenceLedger()
    bash(ledger, "pytest", 0)
    ledger.feed(FilesChanged(checkpoint_id="c1", files=["calc.py"], session_files=1))
    assert not check("All tests pass.", ledger)[0].verified


def test_a_run_of_another_kind_or_none_does_not_count() -> None:
    ledger = EvidenceLedger()
    bash(ledger, "ruff check .", 0)
    [tests, lint] = check("The tests pass. Lint is clean.", ledger)
    assert (tests.verified, tests.evidence) == (False, "no tests command was run")
    assert lint.kind == "lint"
    assert lint.verified


def test_settings_add_commands_to_a_kind() -> None:
    ledger = EvidenceLedger()
    bash(ledger, "./run_checks.sh --all", 0)
    assert not check("All tests pass.", ledger)[0].verified
    assert check("All tests pass.", ledger, {"tests": ["./run_checks.sh"]})[0].verified


def test_phrasings_and_negations() -> None:
    kinds = [k for _, k in find_claims(
        "All 12 tests passed. The build succeeds. mypy is clean. Type checking passes. "
        "The tests do not pass yet. Some tests fail. I read the file."
    )]  # fmt: skip
    assert kinds == ["tests", "build", "typecheck", "typecheck"]


def test_exit_code_read_from_the_bash_result() -> None:
    assert exit_code_of("out\n\nexit code: 2") == 2
    assert exit_code_of("Command timed out after 5 s and was killed: x") is None
