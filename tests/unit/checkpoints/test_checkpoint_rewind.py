"""Checkpoints end to end: a real turn through the fake server changes files with its tools and
the shell; `agent rewind` puts them back, leaving the user's own git untouched.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.checkpoint_support import (
    B_PY,
    D_TXT,
    git,
    make_workspace,
    script_the_turn,
    tree_bytes,
    user_git_state,
)
from tests.e2e.helpers import json_lines
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli

BYPASS = ("--permission-mode", "bypass")


def run_the_turn(fake_model: FakeAnthropic, env: dict[str, str], workspace: Path) -> dict:
    script_the_turn(fake_model)
    proc = run_cli(env, workspace, "run", "-p", "change things", *BYPASS,
                     "--output-format", "json")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert isinstance(result["checkpoint_id"], str)
    return result


@pytest.mark.parametrize("repo", [True, False], ids=["git-repo", "plain-dir"])
def test_rewind_code_restores_everything_the_turn_changed(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, repo: bool
):
    workspace = make_workspace(tmp_path, repo=repo)
    before_files = tree_bytes(workspace)
    before_git = user_git_state(workspace) if repo else None

    result = run_the_turn(fake_model, fake_env, workspace)
    assert (workspace / "a.txt").exists()
    assert (workspace / "c.txt").exists()
    assert not (workspace / "d.txt").exists()
    assert (workspace / "b.py").read_bytes() == B_PY.replace(b"return 1", b"return 2")

    proc = run_cli(fake_env, workspace, "rewind", result["checkpoint_id"], "--code")
    assert proc.returncode == 0, proc.stderr
    assert tree_bytes(workspace) == before_files  # a.txt and c.txt gone, b.py and d.txt back
    assert (workspace / "d.txt").read_bytes() == D_TXT
    assert (workspace / "tool.sh").stat().st_mode & 0o111
    if repo:
        assert user_git_state(workspace) == before_git
    assert "conversation" not in proc.stdout  # --code alone leaves the sessions be


def test_rewinding_the_rewind_brings_back_the_turn(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = make_workspace(tmp_path, repo=True)
    result = run_the_turn(fake_model, fake_env, workspace)
    after_turn = tree_bytes(workspace)
    first = run_cli(fake_env, workspace, "rewind", result["checkpoint_id"], "--code")
    assert first.returncode == 0, first.stderr
    undo_id = first.stdout.split()[1]  # "checkpoint <id> saved first ..."
    second = run_cli(fake_env, workspace, "rewind", undo_id, "--code")
    assert second.returncode == 0, second.stderr
    assert tree_bytes(workspace) == after_turn


def test_rewind_conversation_forks_before_the_prompt(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = make_workspace(tmp_path, repo=False)
    fake_model.script.text("first answer")
    first = run_cli(fake_env, workspace, "run", "-p", "first question", "--output-format", "json")
    session = json.loads(first.stdout)["session_id"]
    fake_model.script.text("second answer")
    second = run_cli(fake_env, workspace, "run", "--resume", session, "-p", "second question",
                       "--output-format", "json")  # fmt: skip
    checkpoint = json.loads(second.stdout)["checkpoint_id"]
    old_transcript = workspace / ".transcripts" / f"{session}.jsonl"
    old_bytes = old_transcript.read_bytes()
    history_before_second = fake_model.bodies()[1]["messages"][:-1]  # up to its prompt

    proc = run_cli(fake_env, workspace, "rewind", checkpoint, "--conversation")
    assert proc.returncode == 0, proc.stderr
    new_session = proc.stdout.strip().splitlines()[-1]
    assert new_session != session
    assert old_transcript.read_bytes() == old_bytes

    fake_model.script.text("another second answer")
    third = run_cli(fake_env, workspace, "run", "--resume", new_session, "-p", "instead")
    assert third.returncode == 0, third.stderr
    request = fake_model.bodies()[-1]  # the fake server validated it against §16
    assert request["messages"][:-1] == history_before_second
    assert request["messages"][-1]["content"][0]["text"] == "instead"
    assert len(request["messages"]) == 3  # first question, first answer, the new prompt


def test_unknown_checkpoint_exits_2(fake_env: dict[str, str], tmp_path: Path):
    workspace = make_workspace(tmp_path, repo=False)
    for args in (("rewind", "nope"), ("checkpoints", "diff", "nope")):
        proc = run_cli(fake_env, workspace, *args)
        assert proc.returncode == 2, proc.stderr
        assert "No checkpoint matches 'nope'" in proc.stderr
        assert "Traceback" not in proc.stderr


def test_checkpoints_list_and_diff(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = make_workspace(tmp_path, repo=True)
    result = run_the_turn(fake_model, fake_env, workspace)
    listed = run_cli(fake_env, workspace, "checkpoints", "--json")
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)
    assert row["id"] == result["checkpoint_id"]
    assert row["session_id"] == result["session_id"]
    assert (row["turn"], row["kind"], row["prompt"]) == (1, "turn", "change things")
    assert row["files"] == ["a.txt", "b.py", "c.txt", "d.txt"]
    text = run_cli(fake_env, workspace, "checkpoints", "list").stdout
    assert result["checkpoint_id"] in text
    assert "4 files" in text

    diff = run_cli(fake_env, workspace, "checkpoints", "diff", result["checkpoint_id"])
    assert diff.returncode == 0, diff.stderr
    assert "-    return 1\n+    return 2\n" in diff.stdout  # (text mode reads CRLF as LF)
    assert "+++ b/a.txt" in diff.stdout
    assert "+new file" in diff.stdout
    assert "Binary files a/d.txt and /dev/null differ" in diff.stdout


def test_stream_json_reports_the_checkpoint(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = make_workspace(tmp_path, repo=False)
    script_the_turn(fake_model)
    proc = run_cli(fake_env, workspace, "run", "-p", "go", *BYPASS,
                     "--output-format", "stream-json")  # fmt: skip
    lines = json_lines(proc.stdout)
    assert lines[0]["type"] == "init"
    # taken when the turn first may change the workspace: after its read, before its write ran
    ends = [(i, line["name"]) for i, line in enumerate(lines) if line["type"] == "tool_end"]
    at = next(i for i, line in enumerate(lines) if line["type"] == "checkpoint")
    assert [name for i, name in ends if i < at] == ["read_file"]
    assert next(name for i, name in ends if i > at) == "write_file"
    checkpoint = lines[at]
    assert checkpoint["turn"] == 1
    assert checkpoint["skipped"] == []
    files = next(line for line in lines if line["type"] == "files_changed")
    assert files == {
        "type": "files_changed",
        "checkpoint_id": checkpoint["id"],
        "files": ["a.txt", "b.py", "c.txt", "d.txt"],
        "session_files": 4,
    }
    assert lines[-1]["type"] == "result"
    assert lines[-1]["checkpoint_id"] == checkpoint["id"]


def test_big_file_is_named_and_the_link_comes_back(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = make_workspace(tmp_path, repo=False)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "data.txt").write_text("not the workspace's")
    with (workspace / "big.bin").open("wb") as f:
        f.truncate(200 * 1024 * 1024)
    (workspace / "link").symlink_to(outside)
    fake_model.script.tool_use("bash", command="rm link && echo plain > link").text("done")
    proc = run_cli(fake_env, workspace, "run", "-p", "go", *BYPASS,
                     "--output-format", "stream-json")  # fmt: skip
    checkpoint = next(line for line in json_lines(proc.stdout) if line["type"] == "checkpoint")
    assert checkpoint["skipped"] == ["big.bin"]
    assert not (workspace / "link").is_symlink()

    rewound = run_cli(fake_env, workspace, "rewind", checkpoint["id"], "--code")
    assert rewound.returncode == 0, rewound.stderr
    assert "skipped (not stored, untouched): big.bin" in rewound.stdout
    assert (workspace / "link").readlink() == outside
    assert (workspace / "big.bin").stat().st_size == 200 * 1024 * 1024
    assert [p.name for p in outside.iterdir()] == ["data.txt"]


def test_a_session_leaves_git_status_clean(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = make_workspace(tmp_path, repo=True)
    clean = git(workspace, "status", "--porcelain", "--untracked-files=all")
    fake_model.script.text("nothing to change")
    proc = run_cli(fake_env, workspace, "run", "-p", "hello")
    assert proc.returncode == 0, proc.stderr
    for folder in (".transcripts", "logs", ".agent"):
        assert (workspace / folder).is_dir()
    assert git(workspace, "status", "--porcelain", "--untracked-files=all") == clean
    assert not (workspace / ".gitignore").exists()  # the user's own is never written


def test_plain_chat_diff_shows_the_turn_and_undo_needs_a_terminal(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = make_workspace(tmp_path, repo=False)
    script_the_turn(fake_model)
    proc = run_cli(fake_env, workspace, "chat", "--permission-mode", "bypass",
                     stdin="change things\n/diff\n/diff 0\n/undo\n")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "◇ 4 files changed: a.txt, b.py, c.txt, d.txt (/undo takes the turn back)" in out
    assert "Changes since before turn 1 ('change things'" in out
    assert "+new file" in out
    assert "-    return 1" in out
    assert "Usage: /diff [N]" in out
    assert "No terminal to confirm on: use `agent rewind" in out
    assert (workspace / "a.txt").exists()  # nothing was undone without a confirmation
