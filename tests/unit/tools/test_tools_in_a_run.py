"""The tools, permissions and hooks end to end: the real CLI against the fake model server.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.e2e.helpers import last_user_blocks
from tests.fake_model import FakeAnthropic
from tests.fake_model.script import Body, Script
from tests.in_process import run_cli


def settings(workspace: Path, data: dict[str, Any]) -> None:
    (workspace / ".agent").mkdir(exist_ok=True)
    (workspace / ".agent" / "settings.json").write_text(json.dumps(data))


def trusted(env: dict[str, str]) -> dict[str, str]:
    """The workspace's own hooks and allow rules apply only once it is trusted."""
    return {**env, "AGENT_TRUST_WORKSPACE": "1"}


def results(body: Body) -> list[dict[str, Any]]:
    return [b for b in last_user_blocks(body) if b["type"] == "tool_result"]


def test_write_edit_and_run_a_script(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    settings(tmp_path, {"permissions": {"allow": ["bash(python3 *)"]}})
    fake_model.script.tool_use("write_file", path="app/hello.py", content="print('hello')\n")
    fake_model.script.tool_use(
        "edit_file", path="app/hello.py", old_string="'hello'", new_string="'hello, world'"
    )
    fake_model.script.tool_use("bash", command="python3 app/hello.py").text("It prints.")
    proc = run_cli(
        trusted(fake_env), tmp_path, "run", "-p", "go", "--permission-mode", "accept-edits"
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "app" / "hello.py").read_text() == "print('hello, world')\n"
    (ran,) = results(fake_model.bodies()[-1])
    assert ran["content"] == "hello, world\n\nexit code: 0"
    assert proc.stdout.strip() == "It prints."


def test_ambiguous_edit_and_edit_after_a_change_on_disk_are_errors(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "a.py").write_text("x = 1\nx = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    script = fake_model.script
    script.tool_uses(("read_file", {"path": "a.py"}), ("read_file", {"path": "b.py"}))
    script.tool_use("edit_file", path="a.py", old_string="x = 1", new_string="x = 9")
    script.tool_use("bash", command="echo 'z = 3' >> b.py")
    script.tool_use("edit_file", path="b.py", old_string="y = 2", new_string="y = 9")
    script.text("done")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "edit", "--permission-mode", "bypass")
    assert proc.returncode == 0, proc.stderr
    bodies = fake_model.bodies()
    (ambiguous,) = results(bodies[2])
    assert ambiguous["is_error"] is True
    assert "occurs 2 times" in ambiguous["content"]
    (stale,) = results(bodies[4])
    assert stale["is_error"] is True
    assert "changed on disk since you last read it" in stale["content"]
    assert (tmp_path / "a.py").read_text() == "x = 1\nx = 1\n"
    assert (tmp_path / "b.py").read_text() == "y = 2\nz = 3\n"


def test_a_large_read_is_saved_and_read_file_opens_the_saved_copy(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    lines = [f"line-{i:05d}-" + "x" * 88 for i in range(1, 2001)]
    (tmp_path / "big.txt").write_text("\n".join(lines) + "\n")
    assert (tmp_path / "big.txt").stat().st_size == 200_000

    def read_saved(body: Body) -> Script:
        (first,) = results(body)
        saved = re.search(r"saved at (\S+\.txt)", first["content"])
        assert saved, first["content"][-300:]
        return Script().tool_use("read_file", path=saved.group(1), offset=1500, limit=2)

    fake_model.script.tool_use("read_file", path="big.txt").respond(read_saved).text("ok")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "read it")
    assert proc.returncode == 0, proc.stderr
    bodies = fake_model.bodies()
    (preview,) = results(bodies[1])
    assert len(preview["content"]) < 3_000
    assert "line-00001-" in preview["content"]
    assert "line-01500-" not in preview["content"]
    (opened,) = results(bodies[2])
    assert opened.get("is_error") is not True
    assert "line-01500-" in opened["content"]
    assert "line-01501-" in opened["content"]


def test_bad_input_gives_errors_naming_the_problem_and_the_session_goes_on(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "a.txt").write_text("a\n")
    fake_model.script.tool_uses(
        ("read_file", {}),
        ("read_file", {"path": "a.txt", "limit": "many"}),
        ("read_file", {"path": "a.txt", "colour": "red"}),
        ("read_fil", {"path": "a.txt"}),
    ).text("recovered")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "recovered"
    missing, wrong_type, unknown_field, unknown_tool = results(fake_model.bodies()[1])
    assert all(r["is_error"] is True for r in (missing, wrong_type, unknown_field, unknown_tool))
    assert "- path: Field required" in missing["content"]
    assert "- limit: Input should be a valid integer" in wrong_type["content"]
    assert "- colour: Extra inputs are not permitted" in unknown_field["content"]
    assert "Unknown tool 'read_fil'" in unknown_tool["content"]
    assert "read_file" in unknown_tool["content"]


def test_headless_default_mode_denies_edits_runs_ls_and_never_sudo(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_model.script.tool_use("read_file", path="a.txt")
    fake_model.script.tool_uses(
        ("edit_file", {"path": "a.txt", "old_string": "alpha", "new_string": "beta"}),
        ("bash", {"command": "ls"}),
    ).text("done")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go")
    assert proc.returncode == 0, proc.stderr
    edit, listing = results(fake_model.bodies()[-1])
    assert edit["is_error"] is True
    assert "--permission-mode accept-edits" in edit["content"]
    assert (tmp_path / "a.txt").read_text() == "alpha\n"
    assert listing.get("is_error") is not True
    assert "a.txt" in listing["content"]

    fake_model.script.tool_use("bash", command="sudo ls").text("done")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "root", "--permission-mode", "bypass")
    assert proc.returncode == 0, proc.stderr
    (sudo,) = results(fake_model.bodies()[-1])
    assert sudo["is_error"] is True
    assert "`sudo` is on the deny list" in sudo["content"]
    log = (tmp_path / "logs" / "agent.log").read_text()
    assert "permission deny edit_file 'a.txt'" in log
    assert "permission allow bash 'ls'" in log
    assert "permission deny bash 'sudo ls' (every mode)" in log


def test_path_escapes_refused_in_bypass_end_to_end(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    (ws / "link").symlink_to(outside, target_is_directory=True)
    corpus = ["../x.txt", str(outside / "abs.txt"), "link/in.txt", "a/../../x.txt"]
    fake_model.script.tool_uses(
        *[("write_file", {"path": p, "content": "escaped"}) for p in corpus]
    ).text("done")
    proc = run_cli(fake_env, ws, "run", "-p", "escape", "--permission-mode", "bypass")
    assert proc.returncode == 0, proc.stderr
    assert all(r["is_error"] is True for r in results(fake_model.bodies()[-1]))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "outside", "ws"]
    assert list(outside.iterdir()) == []


def test_glob_and_grep_skip_state_folders(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("needle = 1\n")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.py").write_text("needle = 2\n")
    fake_model.script.tool_uses(
        ("glob", {"pattern": "**/*.py"}),
        ("grep", {"pattern": "needle"}),
        ("grep", {"pattern": "needle", "path": "notes", "output_mode": "content"}),
    ).text("done")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "find")
    assert proc.returncode == 0, proc.stderr
    globbed, grepped, inside_notes = results(fake_model.bodies()[-1])
    assert globbed["content"] == "src/a.py"
    assert grepped["content"] == "src/a.py"
    assert inside_notes["content"] == "notes/n.py:1:needle = 2"


def test_pre_tool_use_hook_denial_reaches_the_model(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    deny = json.dumps({"decision": "deny", "reason": "shell closed for maintenance"})
    hook = {"command": f"echo '{deny}'", "matcher": "bash"}
    settings(tmp_path, {"hooks": {"pre_tool_use": [hook]}})
    fake_env = trusted(fake_env)
    fake_model.script.tool_use("bash", command="touch made.txt").text("ok")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go", "--permission-mode", "bypass")
    assert proc.returncode == 0, proc.stderr
    (denied,) = results(fake_model.bodies()[-1])
    assert denied["is_error"] is True
    assert "shell closed for maintenance" in denied["content"]
    assert not (tmp_path / "made.txt").exists()


def test_user_prompt_submit_veto_exits_1_with_the_reason(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    hook = {"command": "echo 'prompts about deploys need a ticket' >&2; exit 2"}
    settings(tmp_path, {"hooks": {"user_prompt_submit": [hook]}})
    fake_env = trusted(fake_env)
    proc = run_cli(fake_env, tmp_path, "run", "-p", "deploy now", "--output-format", "json")
    assert proc.returncode == 1
    result = json.loads(proc.stdout)
    assert result["is_error"] is True
    assert "prompts about deploys need a ticket" in result["error"]
    assert fake_model.bodies() == []


def test_agents_md_reaches_the_first_system_prompt(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "AGENTS.md").write_text("Run `make check-7f3a` before you finish.\n")
    user_config = Path(fake_env.get("XDG_CONFIG_HOME") or Path(fake_env["HOME"]) / ".config")
    (user_config / "agent").mkdir(parents=True)
    (user_config / "agent" / "AGENTS.md").write_text("The user prefers short answers.\n")
    fake_model.script.text("noted")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    system = json.dumps(fake_model.bodies()[0]["system"])
    assert "make check-7f3a" in system
    assert "The user prefers short answers." in system
