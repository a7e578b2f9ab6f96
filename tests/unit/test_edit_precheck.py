"""An edit that would fail is not asked about (issue 37 item 8): its own error, unasked, where
the model may read the file; behind a deny rule the question comes as before, so the answer
tells the model nothing of a file it may not read."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.tool_helpers import ScriptedApprover, call, gated_registry, make_ctx


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "abc.py").write_text("x = 1\ny = 1\n")
    (ws / ".env").write_text("TOKEN=1\n")
    return ws


def test_old_string_not_in_the_file_fails_unasked(workspace: Path):
    ctx = make_ctx(workspace)
    approver = ScriptedApprover("allow")
    registry = gated_registry(ctx, "default", approver)
    assert not call(registry, ctx, "read_file", path="abc.py").is_error
    result = call(registry, ctx, "edit_file", path="abc.py", old_string="z = 3", new_string="q")
    assert result.is_error
    assert result.summary == "edit_file abc.py: error"  # its own failure, not "denied"
    assert "old_string was not found in abc.py" in result.content
    assert approver.asked == []


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ({"old_string": "= 1", "new_string": "= 2"}, "occurs 2 times"),
        ({"old_string": "x = 1", "new_string": "x = 1"}, "the same"),
    ],
)
def test_other_certain_failures_are_not_asked_either(workspace: Path, args: dict, said: str):
    ctx = make_ctx(workspace)
    approver = ScriptedApprover("allow")
    registry = gated_registry(ctx, "default", approver)
    call(registry, ctx, "read_file", path="abc.py")
    result = call(registry, ctx, "edit_file", path="abc.py", **args)
    assert result.is_error
    assert said in result.content
    assert approver.asked == []


def test_an_edit_that_can_succeed_is_asked_with_its_diff(workspace: Path):
    ctx = make_ctx(workspace)
    approver = ScriptedApprover("allow")
    registry = gated_registry(ctx, "default", approver)
    call(registry, ctx, "read_file", path="abc.py")
    result = call(registry, ctx, "edit_file", path="abc.py", old_string="x = 1", new_string="x=2")
    assert not result.is_error, result.content
    (asked,) = approver.asked
    assert "+x=2" in asked.preview
    assert (workspace / "abc.py").read_text() == "x=2\ny = 1\n"


def test_a_file_behind_a_deny_rule_is_asked_as_before(workspace: Path):
    """Nothing unasked may say whether `.env` holds a text (or exists): the question comes,
    and a denial says only that the user denied it."""
    ctx = make_ctx(workspace)
    approver = ScriptedApprover("deny")
    registry = gated_registry(ctx, "default", approver, deny=["read_file(.env)"])
    for old in ("TOKEN=1", "NOT THERE"):
        result = call(registry, ctx, "edit_file", path=".env", old_string=old, new_string="x")
        assert result.is_error
        assert "The user denied" in result.content
        assert "TOKEN" not in result.content
    missing = call(registry, ctx, "edit_file", path=".env2", old_string="a", new_string="b")
    assert missing.is_error  # no deny rule covers it: unasked, it says it does not exist
    assert "does not exist" in missing.content
    assert len(approver.asked) == 2
    assert (workspace / ".env").read_text() == "TOKEN=1\n"


def test_a_file_never_read_is_said_unasked(workspace: Path):
    ctx = make_ctx(workspace)
    approver = ScriptedApprover("allow")
    registry = gated_registry(ctx, "default", approver)
    result = call(registry, ctx, "edit_file", path="abc.py", old_string="x = 1", new_string="2")
    assert result.is_error
    assert "Read abc.py with read_file before editing it." in result.content
    assert approver.asked == []
