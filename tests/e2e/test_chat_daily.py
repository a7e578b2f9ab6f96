"""The daily commands of `agent chat` without a terminal (issue 39): /rename, /export, /btw,
/add-dir, /review, and each one's line in /help. The screen's own (/copy, /init's approval,
vim mode, Ctrl-G) are in test_chat_daily_pty.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.e2e.helpers import run_agent
from tests.fake_model import FakeAnthropic

DAILY = ("/rename", "/export", "/copy", "/add-dir", "/init", "/review", "/btw", "/vim")


def chat(
    env: dict[str, str], workspace: Path, *lines: str, args: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    stdin = "".join(f"{line}\n" for line in lines)
    proc = run_agent(env, workspace, "chat", *args, stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    return proc


def all_text(body: dict[str, Any]) -> str:
    return json.dumps(body["messages"], ensure_ascii=False)


def results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every tool_result block of a request, oldest first."""
    blocks = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    return [b for b in blocks if b.get("type") == "tool_result"]


def test_every_daily_command_has_its_line_in_help(fake_env: dict[str, str], tmp_path: Path):
    out = chat(fake_env, tmp_path, "/help all").stdout
    for name in DAILY:
        assert any(line.startswith(name) for line in out.splitlines()), name
    (editor,) = [line for line in out.splitlines() if line.startswith("Ctrl-G ")]
    assert editor.endswith("write the prompt in $EDITOR")


def test_rename_titles_the_session_in_lists_and_after_resume(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("Hello.")
    out = chat(fake_env, tmp_path, "hi", "/rename  Fix the\tlogin\x1b bug ", "/rename", "/sessions")
    lines = out.stdout.splitlines()
    assert any(line.endswith("is now titled “Fix the login bug”.") for line in lines)
    assert "Title: Fix the login bug" in lines
    assert any("“Fix the login bug”" in line and "   2 msgs" in line for line in lines)
    listed = run_agent(fake_env, tmp_path, "sessions", "list", "--json")
    (row,) = json.loads(listed.stdout)
    assert row["title"] == "Fix the login bug"
    text = run_agent(fake_env, tmp_path, "sessions", "list").stdout
    assert "“Fix the login bug”" in text
    again = chat(fake_env, tmp_path, "/rename", "/rename \x07\x1b")
    assert again.stdout.splitlines() == [
        "No title yet: /rename TITLE gives one.",
        "/rename TITLE: say the session's new title.",
    ]
    resumed = run_agent(fake_env, tmp_path, "chat", "--continue", stdin="/rename\n")
    assert resumed.stdout.splitlines() == ["Title: Fix the login bug"]


def test_export_writes_markdown_and_json_of_the_whole_conversation(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "a.txt").write_text("alpha ``` fence\n")
    fake_model.script.tool_use("read_file", path="a.txt").text("It says alpha.")
    out = chat(
        fake_env, tmp_path, "what is in a.txt?", "/rename Reading", "/export", "/export out/c.json"
    )
    lines = out.stdout.splitlines()
    (md_line,) = [line for line in lines if line.startswith("Exported 4 messages to ")]
    md = Path(md_line.removeprefix("Exported 4 messages to ")).read_text()
    assert md.startswith("# Reading\n")
    assert "## You\n\nwhat is in a.txt?" in md
    assert "**read_file**" in md
    assert '"path": "a.txt"' in md
    assert "````\n" in md  # the result's own ``` cannot close its fence
    assert "## Agent\n\nIt says alpha." in md
    assert "/export: cannot write" in out.stdout  # out/ does not exist
    proc = chat(fake_env, tmp_path, "/export c.json", "/export x.md --json", "/export a b")
    lines = proc.stdout.splitlines()
    assert lines[0] == f"Exported 0 messages to {tmp_path / 'c.json'}"  # a new session
    assert lines[2] == "/export [FILE] [--json]: one file name, one format."
    resumed = run_agent(fake_env, tmp_path, "chat", "--continue", stdin="/export c.json\n")
    assert resumed.stdout.strip() == f"Exported 4 messages to {tmp_path / 'c.json'}"
    document = json.loads((tmp_path / "c.json").read_text())
    assert document["title"] == "Reading"
    roles = [(e["type"], e["role"]) for e in document["conversation"]]
    assert roles == [("message", "user"), ("message", "assistant")] * 2
    assert document["conversation"][1]["content"][0]["name"] == "read_file"
    assert json.loads((tmp_path / "x.md").read_text())["conversation"] == []


def test_btw_answers_without_tools_and_leaves_nothing_in_the_next_request(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("glob", pattern="*").text("Nothing here.")
    fake_model.script.text("It was a glob.").text("Second answer.")
    out = chat(fake_env, tmp_path, "look around", "/btw which tool did you use?", "next")
    assert "(btw) which tool did you use?" in out.stdout
    assert "↳ btw: It was a glob." in out.stdout
    _, second, aside, following = fake_model.bodies()
    assert aside["tool_choice"] == {"type": "none"}
    assert aside["tools"] == second["tools"]  # the same prefix: the prompt cache serves it
    assert aside["system"] == second["system"]
    assert "which tool did you use?" in aside["messages"][-1]["content"][-1]["text"]
    assert "which tool" not in all_text(following)
    assert "It was a glob" not in all_text(following)
    assert "tool_choice" not in following
    assert len(following["messages"]) == len(second["messages"]) + 2  # the reply, "next"


def test_add_dir_makes_another_directory_readable_and_writable_under_the_same_rules(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace, other = tmp_path / "ws", tmp_path / "other"
    workspace.mkdir()
    other.mkdir()
    (other / "notes.txt").write_text("from the other directory\n")
    (other / ".git").mkdir()
    fake_model.script.tool_use("read_file", path=str(other / "notes.txt"))
    fake_model.script.tool_use("write_file", path=str(other / "new.txt"), content="written\n")
    fake_model.script.tool_use("write_file", path=str(other / ".git" / "config"), content="x")
    fake_model.script.text("Done.")
    lines = ("/add-dir ../other", "/add-dir", "/add-dir .", "work there")
    out = chat(fake_env, workspace, *lines, args=("--permission-mode", "accept-edits"))
    assert f"Added {other}: its files are read and written" in out.stdout
    assert f"Added directories:\n  {other}" in out.stdout
    assert f"/add-dir: {workspace} is inside the workspace already." in out.stdout
    assert (other / "new.txt").read_text() == "written\n"  # accept-edits: as in the workspace
    bodies = fake_model.bodies()
    read, wrote, guarded = results(bodies[-1])
    assert "from the other directory" in json.dumps(read["content"])
    assert not wrote.get("is_error")
    assert "git's own files" in json.dumps(
        guarded["content"]
    )  # protected as the workspace's .git is: asked, denied
    assert f"The user added the directory {other}" in all_text(bodies[0])


def test_add_dir_refuses_what_is_not_a_directory(fake_env: dict[str, str], tmp_path: Path):
    (tmp_path / "file.txt").write_text("x")
    out = chat(fake_env, tmp_path, "/add-dir /no/such/dir", "/add-dir file.txt", "/add-dir")
    assert out.stdout.splitlines() == [
        "/add-dir: /no/such/dir is not a directory.",
        f"/add-dir: {tmp_path / 'file.txt'} is not a directory.",
        "No directories added.",
    ]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_review_sends_the_working_trees_diff_and_asks_for_ranked_findings(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    out = chat(fake_env, tmp_path, "/review")
    assert "/review: this workspace is not a git repository; nothing to diff." in out.stdout
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.email", "t@example.com")
    git(tmp_path, "config", "user.name", "t")
    (tmp_path / "app.py").write_text("def f():\n    return 1\n")
    git(tmp_path, "add", "app.py")
    git(tmp_path, "commit", "-qm", "one")
    assert "Nothing to review" in chat(fake_env, tmp_path, "/review").stdout
    (tmp_path / "app.py").write_text("def f():\n    return 2\n")
    (tmp_path / "new.py").write_text("x = 1\n")
    # a repository's config must not make the review run a program
    marker = tmp_path / "ran"
    git(tmp_path, "config", "diff.external", f"touch {marker}; false")
    (tmp_path / ".gitattributes").write_text("*.py diff=conv\n")
    git(tmp_path, "config", "diff.conv.textconv", f"touch {marker}; cat")
    fake_model.script.text("High: app.py:2 returns 2")
    out = chat(fake_env, tmp_path, "/review the return value")
    assert "High: app.py:2 returns 2" in out.stdout
    (body,) = fake_model.bodies()
    text = body["messages"][0]["content"][0]["text"]
    assert "findings ranked" in text
    assert "-    return 1\n+    return 2" in text
    assert "new.py" in text
    assert ".gitattributes" in text
    assert "Pay particular attention to: the return value" in text
    assert not marker.exists()


def test_add_dir_is_among_the_sandbox_write_paths(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace, other = tmp_path / "ws", tmp_path / "other"
    workspace.mkdir()
    other.mkdir()
    (other / ".git").mkdir()
    (other / ".git" / "config").write_text("[core]\n")
    command = f"echo one > {other}/a.txt; echo two > {other}/.git/config; cat {other}/a.txt"
    fake_model.script.tool_use("bash", command=command).text("Before.")
    fake_model.script.tool_use("bash", command=command).text("After.")
    out = chat(fake_env, workspace, "write there", "/add-dir ../other", "/sandbox", "again")
    assert f"writable: {workspace}, {other}, " in out.stdout
    before, after = (results(body)[-1] for body in fake_model.bodies()[1::2])
    assert "Read-only file system" in json.dumps(before["content"])  # confined: not writable
    assert "one" in json.dumps(after["content"])  # unasked, in the sandbox: as the workspace
    assert (other / "a.txt").read_text() == "one\n"
    assert (other / ".git" / "config").read_text() == "[core]\n"  # read-only, as the workspace's
    assert (other / ".git" / "hooks").is_dir()  # made first: a command cannot fill it
