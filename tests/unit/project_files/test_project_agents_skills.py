"""Subagent types and skills from `.claude/` through `agent run`: the real CLI and SDK, the fake
model. A type's tools, model alias and body reach the subagent's first request; a skill's name
and description (never its body) reach the first request, `skill` loads the body and a file
beside it, and after a compaction the body is back in view.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.helpers import last_user_blocks
from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import has_tools, system_contains
from tests.in_process import run_cli

REVIEWER_BODY = "You are the house code reviewer. Report each bug as file:line, worst first."
REVIEWER = (
    "---\nname: code-reviewer\ndescription: Use this agent to review changed code. Examples:"
    "\\n<example>user: review it</example>\ntools: Read, Grep, Glob\nmodel: sonnet\n"
    f"color: green\n---\n{REVIEWER_BODY}\n"
)
SKILL_BODY = "# Release notes\nGroup commits by type; see references/format.md for the layout."
SKILL = (
    "---\nname: release-notes\ndescription: Write release notes from the git log. Use when the "
    f"user asks for release notes or a changelog.\n---\n{SKILL_BODY}\n"
)
NOTE = {
    "conclusion": "No bugs found in x.py.",
    "evidence": [],
    "file_refs": [],
    "open_issues": [],
    "confidence": "high",
}


def tool_result_text(body: dict) -> str:
    (result,) = [b for b in last_user_blocks(body) if b["type"] == "tool_result"]
    content = result["content"]
    return content if isinstance(content, str) else "".join(c.get("text", "") for c in content)


def test_agent_type_runs_with_its_tools_model_and_body(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / ".claude" / "agents" / "code-reviewer.md").write_text(REVIEWER)
    child = fake_model.route(system_contains(REVIEWER_BODY))
    child.tool_use("submit_note", NOTE)
    fake_model.script.tool_use(
        "task", description="review x", prompt="Review x.py", agent_type="code-reviewer"
    )
    fake_model.script.tool_use("task", description="bad", prompt="x", agent_type="nosuch")
    fake_model.script.text("Reviewed.")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "review", "--model", "claude-opus-4-5")
    assert proc.returncode == 0, proc.stderr
    bodies = fake_model.bodies()
    (sub,) = [b for b in bodies if system_contains(REVIEWER_BODY)(b)]
    assert sorted(t["name"] for t in sub["tools"]) == ["glob", "grep", "read_file", "submit_note"]
    assert sub["model"] == "claude-sonnet-4-6"
    system = "".join(b["text"] for b in sub["system"])
    assert system.startswith(REVIEWER_BODY)
    assert "You are a subagent" not in system  # the body replaces the general prompt
    main = [b for b in bodies if b not in (sub,)]
    assert main[0]["model"] == "claude-opus-4-5"
    task_tool = next(t for t in main[0]["tools"] if t["name"] == "task")
    assert "- code-reviewer: Use this agent to review changed code." in task_tool["description"]
    assert "- explore: Read-only exploration" in task_tool["description"]
    assert "No bugs found in x.py." in tool_result_text(main[1])
    unknown = tool_result_text(main[2])
    assert unknown == "Unknown agent_type 'nosuch'. Known types: code-reviewer, explore."


def test_builtin_explore_is_read_only(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    child = fake_model.route(system_contains("You are an exploration subagent"))
    child.tool_use("bash", command="touch made.txt").tool_use("submit_note", NOTE)
    fake_model.script.tool_use(
        "task", description="look", prompt="Look around", agent_type="explore"
    ).text("done")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go", "--permission-mode", "bypass")
    assert proc.returncode == 0, proc.stderr
    sub = [b for b in fake_model.bodies() if system_contains("exploration subagent")(b)]
    assert sorted(t["name"] for t in sub[0]["tools"]) == [
        "glob",
        "grep",
        "read_file",
        "submit_note",
    ]
    assert "Unknown tool 'bash'" in tool_result_text(sub[1])
    assert not (tmp_path / "made.txt").exists()


def skill_workspace(tmp_path: Path) -> Path:
    folder = tmp_path / ".claude" / "skills" / "release-notes"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL)
    (folder / "references" / "format.md").write_text("## Added\n## Fixed\nLAYOUT-MARKER-7\n")
    return tmp_path


def test_skill_listed_then_loaded_then_back_after_compaction(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = skill_workspace(tmp_path)
    fake_model.route(has_tools(False)).text("The user wanted release notes; a skill was loaded.")
    script = fake_model.script
    script.tool_use("skill", name="release-notes")
    script.tool_use("skill", name="release-notes", file="references/format.md")
    script.tool_use("skill", name="release-notes", file="../../settings.json")
    script.tool_use("compact").text("Notes written.")
    proc = run_cli(fake_env, ws, "run", "-p", "write the release notes")
    assert proc.returncode == 0, proc.stderr
    main = [b for b in fake_model.bodies() if b.get("tools")]
    first = json.dumps(main[0])
    assert "release-notes: Write release notes from the git log." in first
    assert "Group commits by type" not in first  # the body only once loaded
    assert SKILL_BODY in tool_result_text(main[1])
    assert "LAYOUT-MARKER-7" in tool_result_text(main[2])
    assert "outside the folder of skill release-notes" in tool_result_text(main[3])
    after = json.dumps(main[-1]["messages"])
    assert "Conversation summary" in after
    assert "Group commits by type" in after  # the loaded skill survived the summary


def test_no_skill_is_loaded_unless_the_model_asks_and_why_explains(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = skill_workspace(tmp_path)
    fake_model.script.text("Hello.")
    assert run_cli(fake_env, ws, "run", "-p", "fix the login bug").returncode == 0
    (body,) = fake_model.bodies()
    assert "Group commits by type" not in json.dumps(body)
    why = run_cli(fake_env, ws, "skills", "why", "draft release notes for 2.0", "--json")
    assert why.returncode == 0, why.stderr
    (match,) = json.loads(why.stdout)
    assert (match["name"], match["shared"]) == ("release-notes", ["notes", "release"])
    miss = run_cli(fake_env, ws, "skills", "why", "fix the login bug", "--json")
    assert json.loads(miss.stdout)[0]["shared"] == []


@pytest.mark.usefixtures("sandbox_off")  # sandboxed, the write would run unasked anyway
def test_a_loaded_skills_allowed_tools_hold_for_the_turn_when_trusted(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    folder = tmp_path / ".claude" / "skills" / "stamp"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: stamp\ndescription: Stamps the build.\nallowed-tools: Bash(touch:*)\n---\n"
        "Run touch stamp.txt.\n"
    )
    for _ in range(2):
        fake_model.script.tool_use("skill", name="stamp")
        fake_model.script.tool_use("bash", command="touch stamp.txt").text("stamped")
    assert run_cli(fake_env, tmp_path, "run", "-p", "stamp it").returncode == 0
    assert not (tmp_path / "stamp.txt").exists()  # untrusted: the question is asked (denied)
    assert run_cli(fake_env, tmp_path, "trust").returncode == 0
    assert run_cli(fake_env, tmp_path, "run", "-p", "stamp it").returncode == 0
    assert (tmp_path / "stamp.txt").exists()
