"""Hooks in Claude Code's protocol from `.claude/settings.json`, through `agent run`: the real
CLI, real hook scripts, the fake model. PreToolUse deny in JSON, exit 2, a Stop block that gives
one more turn (and a guard against one that always blocks), context from UserPromptSubmit and
SessionStart, an updated input; and none of them runs in an untrusted workspace.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import last_user_blocks
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli

PY = sys.executable


def hook_script(ws: Path, name: str, code: str) -> str:
    """A hook that logs its stdin to `<name>.jsonl` in the workspace, then runs `code`."""
    path = ws / ".claude" / "hooks" / f"{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "import json, sys, pathlib\n"
        "event = json.load(sys.stdin)\n"
        f"with open({str(ws / (name + '.jsonl'))!r}, 'a') as log:\n"
        "    log.write(json.dumps(event) + '\\n')\n" + code
    )
    return f"{PY} {path}"


def settings(ws: Path, hooks: dict[str, list[tuple[str | None, str]]], **extra: Any) -> None:
    doc = {
        "hooks": {
            event: [
                {
                    **({"matcher": m} if m is not None else {}),
                    "hooks": [{"type": "command", "command": c, "timeout": 20}],
                }
                for m, c in entries
            ]
            for event, entries in hooks.items()
        },
        **extra,
    }
    (ws / ".claude").mkdir(exist_ok=True)
    (ws / ".claude" / "settings.json").write_text(json.dumps(doc))


def events(ws: Path, name: str) -> list[dict[str, Any]]:
    path = ws / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def result_text(body: dict[str, Any]) -> str:
    (result,) = [b for b in last_user_blocks(body) if b["type"] == "tool_result"]
    return str(result["content"])


def trust(env: dict[str, str], ws: Path) -> None:
    proc = run_cli(env, ws, "trust")
    assert proc.returncode == 0, proc.stderr


def test_pre_tool_use_json_deny_stops_the_tool_and_the_reason_reaches_the_model(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no shell in CI-GUARD-9",
        }
    }
    cmd = hook_script(tmp_path, "guard", f"print({json.dumps(json.dumps(deny))})\n")
    settings(tmp_path, {"PreToolUse": [("Bash", cmd)]})
    trust(fake_env, tmp_path)
    fake_model.script.tool_use("bash", command="touch ran.txt").text("ok")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go", "--permission-mode", "bypass")
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "ran.txt").exists()
    assert "Denied by a PreToolUse hook: no shell in CI-GUARD-9" in result_text(
        fake_model.bodies()[1]
    )
    (seen,) = events(tmp_path, "guard")
    assert seen["hook_event_name"] == "PreToolUse"
    assert seen["tool_name"] == "Bash"
    assert seen["tool_input"] == {"command": "touch ran.txt"}
    assert seen["cwd"] == str(tmp_path)
    assert seen["session_id"]
    assert seen["transcript_path"].endswith(".jsonl")


def test_exit_2_blocks_with_stderr_and_updated_input_is_what_runs(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    block = hook_script(tmp_path, "block", "sys.stderr.write('writes are frozen'); sys.exit(2)\n")
    update = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": "echo rewritten > out.txt"},
        }
    }
    rewrite = hook_script(tmp_path, "rewrite", f"print({json.dumps(json.dumps(update))})\n")
    settings(tmp_path, {"PreToolUse": [("Write|Edit", block), ("Bash", rewrite)]})
    trust(fake_env, tmp_path)
    fake_model.script.tool_use("write_file", path="a.txt", content="x")
    fake_model.script.tool_use("bash", command="echo original > out.txt").text("done")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go")
    assert proc.returncode == 0, proc.stderr
    bodies = fake_model.bodies()
    assert "Denied by a PreToolUse hook: writes are frozen" in result_text(bodies[1])
    assert not (tmp_path / "a.txt").exists()
    # the hook said allow: no question in default mode, and the rewritten command ran
    assert (tmp_path / "out.txt").read_text() == "rewritten\n"


def test_stop_block_gives_one_more_turn_and_a_guard_stops_an_endless_one(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    once = hook_script(
        tmp_path,
        "stop",
        (
            "if not event['stop_hook_active']:\n"
            "    print(json.dumps({'decision': 'block', 'reason': 'run the tests first'}))\n"
        ),
    )
    settings(tmp_path, {"Stop": [(None, once)]})
    trust(fake_env, tmp_path)
    fake_model.script.text("Done.").text("Tests pass. Done.")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Tests pass. Done."
    bodies = fake_model.bodies()
    assert len(bodies) == 2
    assert "Stop hook: run the tests first" in json.dumps(bodies[1]["messages"][-1])
    assert [e["stop_hook_active"] for e in events(tmp_path, "stop")] == [False, True]

    always = hook_script(tmp_path, "always", "print(json.dumps({'decision': 'block'}))\n")
    settings(tmp_path, {"Stop": [(None, always)]})
    trust(fake_env, tmp_path)
    for _ in range(6):
        fake_model.script.text("again")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go")
    assert proc.returncode == 0, proc.stderr
    assert len(fake_model.bodies()) == 2 + 1 + 3  # the first answer, then 3 blocks honoured


def test_prompt_and_session_start_context_reach_the_first_request(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    start = hook_script(tmp_path, "start", "print('SESSION-CONTEXT-1')\n")
    add = {
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": "PROMPT-CONTEXT-2",
        }
    }
    prompt = hook_script(tmp_path, "prompt", f"print({json.dumps(json.dumps(add))})\n")
    settings(tmp_path, {"SessionStart": [(None, start)], "UserPromptSubmit": [(None, prompt)]})
    trust(fake_env, tmp_path)
    fake_model.script.text("hi")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "hello")
    assert proc.returncode == 0, proc.stderr
    text = json.dumps(fake_model.bodies()[0]["messages"][0])
    assert "hello" in text
    assert "SESSION-CONTEXT-1" in text
    assert "PROMPT-CONTEXT-2" in text
    assert events(tmp_path, "prompt")[0]["prompt"] == "hello"
    assert events(tmp_path, "start")[0]["source"] == "startup"


@pytest.mark.usefixtures("sandbox_off")  # sandboxed, the write would run unasked anyway
def test_untrusted_workspace_runs_no_hook_and_no_allow_rule_but_deny_rules_apply(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    names = ("guard", "stop", "prompt", "start")
    cmds = {n: hook_script(tmp_path, n, "sys.stderr.write('no'); sys.exit(2)\n") for n in names}
    settings(
        tmp_path,
        {
            "PreToolUse": [(None, cmds["guard"])],
            "Stop": [(None, cmds["stop"])],
            "UserPromptSubmit": [(None, cmds["prompt"])],
            "SessionStart": [(None, cmds["start"])],
        },
        permissions={"allow": ["Bash(touch:*)"], "deny": ["Read(./secret.txt)"]},
    )
    (tmp_path / "secret.txt").write_text("TOP-SECRET")
    fake_model.script.tool_use("bash", command="touch made.txt")
    fake_model.script.tool_use("read_file", path="secret.txt").text("finished")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "finished"
    assert all(events(tmp_path, n) == [] for n in names)
    bodies = fake_model.bodies()
    assert "Permission denied: bash touch made.txt" in result_text(bodies[1])  # asked, headless
    assert not (tmp_path / "made.txt").exists()
    assert "Refused by the permissions.deny pattern 'read_file(secret.txt)'" in result_text(
        bodies[2]
    )
    assert "TOP-SECRET" not in json.dumps(bodies)


def test_post_tool_use_subagent_stop_pre_compact_and_session_end(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    post = hook_script(
        tmp_path,
        "post",
        ("print(json.dumps({'decision': 'block', 'reason': 'FORMAT-FEEDBACK-3'}))\n"),
    )
    cmds = {n: hook_script(tmp_path, n, "") for n in ("substop", "precompact", "end")}
    settings(
        tmp_path,
        {
            "PostToolUse": [("Read", post)],
            "SubagentStop": [(None, cmds["substop"])],
            "PreCompact": [(None, cmds["precompact"])],
            "SessionEnd": [(None, cmds["end"])],
        },
    )
    (tmp_path / "a.txt").write_text("alpha\n")
    trust(fake_env, tmp_path)
    child = fake_model.route(lambda body: "You are a subagent" in json.dumps(body.get("system")))
    child.tool_use("submit_note", conclusion="ok", confidence="high")
    fake_model.route(lambda body: not body.get("tools")).text("summary of the work")
    script = fake_model.script
    script.tool_use("read_file", path="a.txt")
    script.tool_use("task", description="look", prompt="Look.")
    script.tool_use("compact", focus="the file").text("done")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go")
    assert proc.returncode == 0, proc.stderr
    main = [
        b
        for b in fake_model.bodies()
        if b.get("tools") and "You are a subagent" not in json.dumps(b.get("system"))
    ]
    assert "PostToolUse hook: FORMAT-FEEDBACK-3" in result_text(main[1])
    assert "alpha" in result_text(main[1])
    assert [e["hook_event_name"] for e in events(tmp_path, "substop")] == ["SubagentStop"]
    (compacted,) = events(tmp_path, "precompact")
    assert (compacted["trigger"], compacted["custom_instructions"]) == ("manual", "the file")
    (ended,) = events(tmp_path, "end")
    assert ended["reason"] == "exit"
    assert ended["session_id"] == events(tmp_path, "post")[0]["session_id"]


def test_ask_rules_ask_even_for_read_only_commands(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    settings(tmp_path, {}, permissions={"ask": ["Bash(git status:*)"]})
    fake_model.script.tool_use("bash", command="git status").text("ok")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go")  # untrusted: ask rules narrow
    assert proc.returncode == 0, proc.stderr
    assert "Permission denied: bash git status" in result_text(fake_model.bodies()[1])
