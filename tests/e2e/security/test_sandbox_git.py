"""The sandbox around what git and the agent read or run later (issue 50, items 3, 12, 13): a
hostile command runs unasked inside the real bubblewrap (`agent run`, the fake model), then the
user runs plain `git status` and `git commit` outside, as an editor does all the time. A program
the command planted must not have run: its marker file, outside, must not exist."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_cli.core.settings.schema import Settings
from agent_cli.ext.jobs.board import JobBoard
from agent_cli.tools.registry import ToolRegistry
from tests.e2e.jobs_support import board_tools
from tests.e2e.security.test_sandbox_boundary import run_commands
from tests.fake_model import FakeAnthropic
from tests.unit.tool_helpers import make_ctx
from tests.waiting import until

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


def _git(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The user's own git, outside the sandbox and with nothing neutralised."""
    return subprocess.run(
        ["git", "-C", str(ws), *args], capture_output=True, text=True, check=False, timeout=60
    )


def _repo(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    _git(ws, "init", "-q")
    _git(ws, "config", "user.name", "u")
    _git(ws, "config", "user.email", "u@example.com")
    (ws / "a.txt").write_text("a\n")
    _git(ws, "add", "a.txt")
    _git(ws, "commit", "-qm", "start")
    return ws


def _user_works(ws: Path) -> None:
    """What the user does next: look, then commit."""
    (ws / "b.txt").write_text("b\n")
    _git(ws, "status")
    _git(ws, "add", "b.txt")
    _git(ws, "commit", "-qm", "next")


def _plant(marker: Path) -> str:
    """Shell lines writing, in `$G` (a git directory), a config running a program through
    core.fsmonitor and a pre-commit hook, both touching `marker`."""
    return (
        f'git config -f "$G/config" core.fsmonitor "touch {marker}; false"; '
        f'mkdir -p "$G/hooks"; printf "#!/bin/sh\\ntouch {marker}\\n" > "$G/hooks/pre-commit"; '
        'chmod +x "$G/hooks/pre-commit"'
    )


def test_a_git_folder_moved_aside_and_replaced_runs_nothing(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """`mv .git .git.old` and a new `.git` with core.fsmonitor and a pre-commit hook."""
    ws, marker = _repo(tmp_path), tmp_path / "ran"
    command = f"mv .git .git.old && cp -a .git.old .git && G=.git && {_plant(marker)}"
    (result,) = run_commands(fake_model, fake_env, ws, [command])
    _user_works(ws)
    assert not marker.exists(), result
    assert not (ws / ".git.old").exists()


def test_a_commondir_naming_a_config_the_command_wrote_runs_nothing(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """`.git/commondir` pointing at a folder the command filled: git reads its config."""
    ws, marker = _repo(tmp_path), tmp_path / "ran"
    command = (
        f"cp -a .git evil && G=evil && {_plant(marker)}; echo ../evil > .git/commondir; "
        "git config -f .git/config.worktree core.fsmonitor 'touch " + str(marker) + "'"
    )
    (result,) = run_commands(fake_model, fake_env, ws, [command])
    _user_works(ws)
    assert not marker.exists(), result
    assert not (ws / ".git" / "commondir").exists()


def test_a_submodules_git_folder_is_held_as_the_repositorys_own(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """`.git/modules/<name>` is a submodule's git directory: its config and hooks run too."""
    ws, marker = _repo(tmp_path), tmp_path / "ran"
    sub = ws / ".git" / "modules" / "lib"
    sub.mkdir(parents=True)
    _git(sub.parent, "init", "-q", "--bare", "lib")
    command = f"G=.git/modules/lib && {_plant(marker)}; mv .git/modules .git/modules.old"
    (result,) = run_commands(fake_model, fake_env, ws, [command])
    assert not marker.exists()
    assert "fsmonitor" not in (sub / "config").read_text(), result
    assert not (sub / "hooks" / "pre-commit").exists()
    assert sub.is_dir()


def test_git_init_inside_keeps_a_plain_config_and_loses_a_planted_one(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """Item 3's `git init` with no `.git` yet: the command may write any config. What git
    init writes stays (the repository works); a config or hook that runs a program does not."""
    plain, hostile = tmp_path / "plain", tmp_path / "hostile"
    marker = tmp_path / "ran"
    for ws in (plain, hostile):
        ws.mkdir()
    init = "git init -q && git config user.name u && git config user.email u@e.x"
    commit = "echo a > a.txt && git add a.txt && git commit -qm start && git log --oneline"
    (made,) = run_commands(fake_model, fake_env, plain, [f"{init} && {commit}"])
    assert "start" in made, made
    assert _git(plain, "log", "--oneline").stdout.strip().endswith("start")
    assert "sandbox-rejected" not in made
    (planted,) = run_commands(
        fake_model, fake_env, hostile, [f"{init} && G=.git && {_plant(marker)}"]
    )
    _user_works(hostile)
    assert not marker.exists(), planted
    assert "[sandbox: .git/config is protected; the command created it" in planted
    assert "[sandbox: .git/hooks is protected" in planted


def test_a_linked_worktrees_git_file_is_read_only(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """A `.git` that is a file (`gitdir: ...`) names where the repository is: pointed at a copy
    with a planted config, the user's git in that worktree runs it."""
    main, marker = _repo(tmp_path), tmp_path / "ran"
    ws = tmp_path / "wt"
    _git(main, "worktree", "add", "-q", str(ws))
    before = (ws / ".git").read_text()
    command = (
        f"cp -a {main}/.git evil && G=evil && {_plant(marker)}; "
        'echo "gitdir: $PWD/evil" > .git; mv .git git.old; echo "gitdir: $PWD/evil" > .git'
    )
    (result,) = run_commands(fake_model, fake_env, ws, [command])
    _user_works(ws)
    assert not marker.exists(), result
    assert (ws / ".git").read_text() == before


def test_a_claude_folder_cannot_be_swapped_for_one_without_its_deny_rules(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """Item 13: renaming `.claude` replaced its protected settings.json."""
    ws = _repo(tmp_path)
    (ws / ".claude").mkdir()
    rules = {"permissions": {"deny": ["Bash(curl:*)"]}}
    (ws / ".claude" / "settings.json").write_text(json.dumps(rules))
    command = "mv .claude .claude.old; mkdir -p .claude; echo '{}' > .claude/settings.json"
    (result,) = run_commands(fake_model, fake_env, ws, [command])
    assert json.loads((ws / ".claude" / "settings.json").read_text()) == rules, result


def test_settling_never_renames_through_a_claude_link_to_the_users_folder(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """Item 12: `.claude` swapped for a link to ~/.claude; settling then renamed the user's
    own ~/.claude/settings.json. Here `.claude` existed without settings.json."""
    ws, home = _repo(tmp_path), Path(fake_env["HOME"])
    (ws / ".claude").mkdir()
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"the": "user\'s"}')
    command = "mv .claude .claude.old; ln -s ~/.claude .claude; ls .claude/"
    (result,) = run_commands(fake_model, fake_env, ws, [command])
    assert (home / ".claude" / "settings.json").read_text() == '{"the": "user\'s"}', result
    assert not (home / ".claude" / "settings.json.sandbox-rejected").exists()
    assert (ws / ".claude").is_dir()
    assert not (ws / ".claude").is_symlink()


def test_a_nested_repository_the_command_adds_as_a_submodule_runs_nothing(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """`git status` runs `git status` in every submodule whose folder holds a `.git`, and
    that reads its config: a nested repository made in one command and `git add`ed in the
    next would have the user's `git status` run its fsmonitor."""
    ws, marker = _repo(tmp_path), tmp_path / "ran"
    nested = (
        "mkdir sub && cd sub && git init -q && git -c user.name=u -c user.email=u@e.x "
        f"commit -q --allow-empty -m s && G=.git && {_plant(marker)}"
    )
    made, added = run_commands(fake_model, fake_env, ws, [nested, "git add sub && git status"])
    _user_works(ws)
    assert not marker.exists(), (made, added)
    assert "[sandbox: sub/.git/config is protected; the command created it" in added


def test_a_submodules_own_git_folder_stays_as_it_was(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """A submodule the repository already records, with its `.git` inside its folder."""
    ws, marker = _repo(tmp_path), tmp_path / "ran"
    sub = ws / "sub"
    sub.mkdir()
    _git(sub, "init", "-q")
    _git(
        sub,
        "-c",
        "user.name=u",
        "-c",
        "user.email=u@e.x",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "s",
    )
    _git(ws, "add", "sub")
    _git(ws, "commit", "-qm", "with sub")
    command = f"G=sub/.git && {_plant(marker)}; mv sub/.git sub/.git.old; mv sub sub.old"
    (result,) = run_commands(fake_model, fake_env, ws, [command])
    _user_works(ws)
    assert not marker.exists(), result
    assert "fsmonitor" not in (sub / ".git" / "config").read_text()


def test_a_command_moved_to_the_background_is_settled_when_it_ends(tmp_path: Path) -> None:
    """A foreground command moved to the background was settled at the move: what it planted
    afterwards (here a `.claude/settings.json` where none was) stayed."""
    ws = _repo(tmp_path)
    settings = Settings.model_validate({"jobs": {"background_after_s": 0.2}})
    ctx = make_ctx(ws, settings)
    board = JobBoard(ctx.paths, settings.jobs)
    registry = ToolRegistry(board_tools(board))
    plant = "mkdir -p .claude && echo '{\"hooks\": {}}' > .claude/settings.json"
    command = f"while [ ! -e go ]; do sleep 0.05; done; {plant}"

    async def go() -> str:
        try:
            moved = await registry.dispatch("bash", {"command": command}, ctx)
            (ws / "go").touch()
            rejected = ws / ".claude" / "settings.json.sandbox-rejected"
            await until(rejected.exists, 30, "the job's plant moved aside")
            return moved.content
        finally:
            await board.aclose()

    moved = asyncio.run(go())
    assert "moved to the background" in moved
    assert not (ws / ".claude" / "settings.json").exists()
