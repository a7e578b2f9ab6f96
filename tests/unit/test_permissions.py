"""Permission modes, patterns, "always" answers and the headless denial, through dispatch."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import pytest

from agent_cli.policy.patterns import bash_pattern, matches
from tests.unit.tool_helpers import ScriptedApprover, call, gated_registry, make_ctx, unconfined


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("alpha\n")
    return ws


def test_headless_default_denies_edits_naming_the_flag(workspace: Path):
    ctx = make_ctx(workspace)
    result = call(gated_registry(ctx), ctx, "write_file", path="b.txt", content="x")
    assert result.is_error
    assert "--permission-mode accept-edits" in result.content
    assert not (workspace / "b.txt").exists()


def test_accept_edits_writes_without_a_question(workspace: Path):
    ctx = make_ctx(workspace)
    approver = ScriptedApprover("deny")
    registry = gated_registry(ctx, "accept-edits", approver)
    result = call(registry, ctx, "write_file", path="b.txt", content="x")
    assert not result.is_error, result.content
    assert (workspace / "b.txt").read_text() == "x"
    assert approver.asked == []


def test_accept_edits_still_asks_for_the_agents_own_settings(workspace: Path):
    ctx = make_ctx(workspace)
    approver = ScriptedApprover("deny")
    registry = gated_registry(ctx, "accept-edits", approver)
    result = call(registry, ctx, "write_file", path=".agent/settings.json", content="{}")
    assert result.is_error
    assert [r.tool for r in approver.asked] == ["write_file"]


def test_read_only_shell_runs_unasked_other_commands_ask(workspace: Path):
    ctx = make_ctx(workspace, unconfined())  # the sandbox would run the writes unasked
    approver = ScriptedApprover("deny")
    registry = gated_registry(ctx, "default", approver)
    listed = call(registry, ctx, "bash", command="ls")
    assert not listed.is_error
    assert "a.txt" in listed.content
    touched = call(registry, ctx, "bash", command="touch made.txt")
    assert touched.is_error
    assert "The user denied" in touched.content
    assert not (workspace / "made.txt").exists()
    assert [r.pattern for r in approver.asked] == ["bash(touch *)"]


def test_always_is_remembered_as_the_pattern_shown(workspace: Path):
    ctx = make_ctx(workspace, unconfined())  # the sandbox would run the writes unasked
    approver = ScriptedApprover("always")
    registry = gated_registry(ctx, "default", approver)
    assert not call(registry, ctx, "bash", command="touch one.txt").is_error
    approver.answer = "deny"
    assert not call(registry, ctx, "bash", command="touch two.txt").is_error
    # the remembered pattern does not cover a chained command
    assert call(registry, ctx, "bash", command="touch three.txt; rm one.txt").is_error
    assert len(approver.asked) == 2
    assert (workspace / "one.txt").exists()
    assert (workspace / "two.txt").exists()


def test_deny_list_refused_in_bypass(workspace: Path):
    ctx = make_ctx(workspace)
    result = call(gated_registry(ctx, "bypass"), ctx, "bash", command="sudo ls")
    assert result.is_error
    assert "deny list" in result.content


def test_settings_allow_and_deny_patterns(workspace: Path):
    ctx = make_ctx(workspace)
    registry = gated_registry(
        ctx, "default", allow=["bash(touch *)", "write_file"], deny=["bash(git push*)", "grep"]
    )
    assert not call(registry, ctx, "bash", command="touch ok.txt").is_error
    assert not call(registry, ctx, "write_file", path="w.txt", content="w").is_error
    pushed = call(registry, ctx, "bash", command="ls && git push origin")
    assert pushed.is_error
    assert "permissions.deny" in pushed.content
    assert call(registry, ctx, "grep", pattern="alpha").is_error
    bypass = gated_registry(ctx, "bypass", deny=["bash(git push*)"])
    assert call(bypass, ctx, "bash", command="git push").is_error


def test_plan_mode_allows_reading_only(workspace: Path):
    ctx = make_ctx(workspace)
    approver = ScriptedApprover("allow")
    registry = gated_registry(ctx, "plan", approver)
    assert not call(registry, ctx, "read_file", path="a.txt").is_error
    assert "a.txt" in call(registry, ctx, "bash", command="ls").content
    edit = call(registry, ctx, "edit_file", path="a.txt", old_string="alpha", new_string="b")
    assert edit.is_error
    assert "plan mode" in edit.content
    shell = call(registry, ctx, "bash", command="touch x")
    assert shell.is_error
    assert "plan mode" in shell.content
    assert approver.asked == []
    assert (workspace / "a.txt").read_text() == "alpha\n"


def test_reading_outside_asks_headless_denies_bypass_allows(tmp_path: Path, workspace: Path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret-ish\n")
    ctx = make_ctx(workspace)
    denied = call(gated_registry(ctx, "accept-edits"), ctx, "read_file", path=str(outside))
    assert denied.is_error
    assert "--permission-mode bypass" in denied.content
    approver = ScriptedApprover("allow")
    asked = call(gated_registry(ctx, "default", approver), ctx, "read_file", path=str(outside))
    assert "secret-ish" in asked.content
    assert approver.asked[0].pattern == f"read_file({tmp_path}/*)"
    allowed = call(gated_registry(ctx, "bypass"), ctx, "read_file", path=str(outside))
    assert "secret-ish" in allowed.content


def test_every_decision_is_logged(workspace: Path, caplog: pytest.LogCaptureFixture):
    ctx = make_ctx(workspace, unconfined())  # the sandbox would run the writes unasked
    registry = gated_registry(ctx, "default")
    with caplog.at_level(logging.INFO, logger="agent_cli.policy.permissions"):
        call(registry, ctx, "bash", command="ls")
        call(registry, ctx, "bash", command="touch x")
        call(registry, ctx, "bash", command="sudo ls")
    lines = [r.getMessage() for r in caplog.records]
    assert any(line.startswith("permission allow bash 'ls'") for line in lines)
    assert any(line.startswith("permission deny bash 'touch x'") for line in lines)
    assert any("sudo ls" in line and "every mode" in line for line in lines)


def test_patterns():
    assert matches("bash", "bash", "anything")
    assert matches("bash(npm test*)", "bash", "npm test -- -k x")
    assert not matches("bash(npm test*)", "bash", "npm test; rm -rf x")
    assert matches("bash(git push*)", "bash", "ls && git push", deny=True)
    assert matches("edit_file(src/*)", "edit_file", "src/a/b.py")
    assert not matches("edit_file(src/*)", "write_file", "src/a.py")
    assert bash_pattern("npm test") == "bash(npm *)"
    assert bash_pattern("make") == "bash(make)"
    assert bash_pattern("ls | wc -l") == "bash(ls | wc -l)"


# review finding 2: git runs what .git/config names (core.fsmonitor on `git status`), so writes
# into .git are asked like the agent's own settings, in accept-edits too
FSMONITOR = '[core]\n\tfsmonitor = "touch pwned; false"\n'


def _git_init(workspace: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)


def test_accept_edits_cannot_plant_a_git_fsmonitor(workspace: Path):
    _git_init(workspace)
    config = workspace / ".git" / "config"
    before = config.read_text()
    ctx = make_ctx(workspace)
    registry = gated_registry(ctx, "accept-edits")
    written = call(registry, ctx, "write_file", path=".git/config", content=before + FSMONITOR)
    assert written.is_error
    assert "--permission-mode bypass" in written.content
    assert config.read_text() == before
    assert not call(registry, ctx, "bash", command="git status").is_error
    assert not (workspace / "pwned").exists()


@pytest.mark.parametrize(
    "path", [".git/config", ".git/hooks/pre-commit", "sub/.git/config", ".git", "HEAD", "config"]
)
def test_git_internals_are_always_asked(workspace: Path, path: str):
    ctx = make_ctx(workspace)
    approver = ScriptedApprover("deny")
    registry = gated_registry(ctx, "accept-edits", approver, allow=["write_file"])
    assert call(registry, ctx, "write_file", path=path, content="x").is_error
    assert [r.tool for r in approver.asked] == ["write_file"]
    assert not (workspace / path).exists()


@pytest.mark.parametrize("link", ["symlink", "gitdir file"])
def test_a_git_folder_under_another_name_is_protected_too(workspace: Path, link: str):
    (workspace / "gitdata").mkdir()
    if link == "symlink":
        (workspace / ".git").symlink_to("gitdata")
    else:
        (workspace / ".git").write_text("gitdir: gitdata\n")
    ctx = make_ctx(workspace)
    written = call(
        gated_registry(ctx, "accept-edits"),
        ctx,
        "write_file",
        path="gitdata/config",
        content=FSMONITOR,
    )
    assert written.is_error
    assert not (workspace / "gitdata" / "config").exists()


# review finding 3: an "always" for write_file must not cover the agent's own settings
def test_always_for_write_file_does_not_cover_own_settings(workspace: Path):
    ctx = make_ctx(workspace)
    approver = ScriptedApprover("always")
    registry = gated_registry(ctx, "default", approver)
    assert not call(registry, ctx, "write_file", path="b.txt", content="x").is_error
    approver.answer = "deny"
    assert not call(registry, ctx, "write_file", path="c.txt", content="x").is_error
    own = call(registry, ctx, "write_file", path=".agent/settings.json", content="{}")
    assert own.is_error
    assert not (workspace / ".agent" / "settings.json").exists()
    assert len(approver.asked) == 2


def test_own_settings_ignore_allow_patterns_and_are_asked_every_time(workspace: Path):
    ctx = make_ctx(workspace)
    approver = ScriptedApprover("always")
    registry = gated_registry(ctx, "default", approver, allow=["write_file", "write_file(*)"])
    own = ".agent/settings.json"
    assert not call(registry, ctx, "write_file", path=own, content="{}").is_error
    approver.answer = "deny"
    again = call(registry, ctx, "write_file", path=own, content='{"max_retries": 1}')
    assert again.is_error
    assert (workspace / own).read_text() == "{}"
    first = approver.asked[0]
    assert first.allow_hint == "run with --permission-mode bypass"  # allow patterns do not help
    assert not any(matches(first.pattern, "write_file", s) for s in (own, "b.txt", ".git/x"))
    # ...while ordinary files still follow the settings' allow patterns
    assert not call(registry, ctx, "write_file", path="b.txt", content="x").is_error
    assert len(approver.asked) == 2


# review finding 11: permissions.deny patterns hold against wrappers, paths and nested shells
RM_IN_DISGUISE = [
    "rm -rf build",
    "FOO=1 rm -rf build",
    "command rm -rf build",
    "/bin/rm -rf build",
    "\\rm -rf build",
    "env rm -rf build",
    'bash -c "rm -rf build"',
    "sh -ec 'rm -rf build'",
    "eval rm -rf build",
    "ls && nohup rm -rf build",
]


@pytest.mark.parametrize("command", RM_IN_DISGUISE)
def test_deny_patterns_see_through_wrappers(workspace: Path, command: str):
    assert matches("bash(rm *)", "bash", command, deny=True)
    (workspace / "build").mkdir()
    ctx = make_ctx(workspace)
    result = call(gated_registry(ctx, "bypass", deny=["bash(rm *)"]), ctx, "bash", command=command)
    assert result.is_error
    assert "permissions.deny" in result.content
    assert (workspace / "build").is_dir()


def test_deny_patterns_do_not_catch_mentions():
    for command in ("echo rm -rf build", "grep rm notes.txt", "git commit -m 'rm old'"):
        assert not matches("bash(rm *)", "bash", command, deny=True), command
