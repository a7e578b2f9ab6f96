"""A call's preview shows why it was refused or failed first and whole (issue 56 item 3): the
sandbox's lines come last in the result but first on screen, a call the sandbox refused
something is not marked ✔, and a failed call's message wraps instead of being cut."""

from __future__ import annotations

from agent_cli.core.events import ToolEnd
from agent_cli.ui.render.render import tool_end
from agent_cli.ui.render.tool_log import ToolLog

REFUSED = "[sandbox: network request refused: example.com:443 was refused by the user]"


def _bash(output: str, failed: bool = False) -> ToolEnd:
    code = 1 if failed else 0
    return ToolEnd(
        id="t1", name="bash", is_error=failed, summary=f"bash curl → exit {code}", output=output
    )


def test_a_refused_host_in_a_command_that_ended_well_is_marked_and_said_first():
    out = "\n".join(f"line {n}" for n in range(1, 9)) + f"\n\nexit code: 0\n{REFUSED}"
    lines = tool_end(_bash(out), 100, color=False).split("\n")
    assert lines[0].startswith("! bash curl")
    assert lines[1] == f"  │ {REFUSED}"
    assert lines[2] == "  │ line 1"
    assert lines[-1] == "  │ +4 lines"  # the exit line is in the summary, not counted


def test_a_failed_commands_sandbox_line_comes_before_its_output_and_wraps():
    note = "[sandbox: a write outside the workspace or to a protected path was denied; rerun]"
    out = f"touch: cannot touch '/etc/x': Read-only file system\n\nexit code: 1\n{note}"
    lines = tool_end(_bash(out, failed=True), 60, color=False).split("\n")
    assert lines[0].startswith("✗ bash")
    reason = " ".join(line.removeprefix("  │ ") for line in lines[1:3])
    assert reason == note  # wrapped at 60 columns, not cut
    assert "Read-only file system" in lines[3]
    assert all(len(line) <= 60 for line in lines)


def test_a_plain_success_keeps_its_mark_and_the_tool_view_marks_the_refusal():
    assert tool_end(_bash("ok\n\nexit code: 0"), 80, color=False).startswith("✔ ")
    log = ToolLog()
    log.feed(_bash(f"exit code: 0\n{REFUSED}"))
    assert log.text().startswith("── 1. ! bash curl")
