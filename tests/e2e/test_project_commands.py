"""Slash commands from `.claude/commands/` listed and run in `agent chat`: the real CLI, real
git, the fake model. Through `agent run -p "/name args"` (trusted, untrusted) they are proven in
process: tests/unit/project_files/test_project_commands.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.e2e.helpers import last_user_blocks, run_agent
from tests.fake_model import FakeAnthropic

REVIEW = (
    "---\ndescription: Review one file against the diff\nargument-hint: <file>\n"
    "allowed-tools: Bash(git diff:*)\nmodel: haiku\n---\n"
    "Review $ARGUMENTS carefully; the first argument is $1.\n\nChanges:\n!`git diff --stat`\n"
)


def git_workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "x.py").write_text("a = 1\n")
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "one"]):
        subprocess.run(
            ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
            cwd=ws,
            check=True,
            capture_output=True,
        )
    (ws / "src" / "x.py").write_text("a = 2\nb = 3\n")
    (ws / ".claude" / "commands").mkdir(parents=True)
    (ws / ".claude" / "commands" / "review.md").write_text(REVIEW)
    return ws


def first_prompt(server: FakeAnthropic) -> tuple[str, str]:
    body = server.bodies()[0]
    return "".join(b.get("text", "") for b in last_user_blocks(body)), body["model"]


def test_chat_lists_and_runs_project_commands(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = git_workspace(tmp_path)
    skill = ws / ".claude" / "skills" / "tidy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: tidy\ndescription: Tidy imports.\n---\nSort them.\n"
    )
    fake_model.script.text("Reviewed in chat.").text("Tidied.")
    stdin = "/commands\n/agents\n/skills\n/review src/x.py\n/tidy\n"
    proc = run_agent(fake_env, ws, "chat", stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "review <file>  —  Review one file against the diff" in out
    assert "needs `agent trust`: allowed-tools, !`cmd` lines (asked instead)" in out
    assert "explore  —  Read-only exploration" in out
    assert "tidy  —  Tidy imports." in out
    assert "Reviewed in chat." in out
    assert "Tidied." in out
    first, second = fake_model.bodies()
    assert "Review src/x.py carefully" in json.dumps(first["messages"][0])
    assert "Sort them." in json.dumps(second["messages"][-1])  # /tidy: the skill, by the user
