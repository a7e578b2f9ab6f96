"""Pure rendering of events: markdown blocks, tool lines, the turn's scrollback and live region."""

from __future__ import annotations

from agent_cli.core.events import (
    ErrorEvent,
    NoteAdded,
    StreamRestart,
    SubagentProgress,
    TextDelta,
    ToolEnd,
    ToolStart,
    TurnEnd,
    UsageUpdate,
)
from agent_cli.core.payloads import DiffDisplay
from agent_cli.ui.render.render import split_blocks, tool_end, tool_label
from agent_cli.ui.turn import TurnView
from tests.e2e.helpers import make_note


def test_blocks_are_cut_at_blank_lines_outside_fences():
    text = "one\ntwo\n\n```py\na\n\nb\n```\n\nthree\n\nunfin"
    assert split_blocks(text) == (["one\ntwo", "```py\na\n\nb\n```", "three"], "unfin")


def test_an_unfinished_fence_or_line_is_not_a_block():
    assert split_blocks("```\ncode\n\nmore") == ([], "```\ncode\n\nmore")
    assert split_blocks("no newline yet") == ([], "no newline yet")


def test_tool_labels():
    assert tool_label("read_file", {"path": "a.py"}) == "read_file a.py"
    assert tool_label("bash", {"command": "pytest  -q\n"}) == "bash pytest -q"
    assert tool_label("todo_write", {"todos": [{}, {}]}) == "todo_write (2 items)"
    assert tool_label("task", {"description": "find the loop", "prompt": "..."}) == (
        "task find the loop"
    )


def test_tool_end_lines_and_diff():
    ok = ToolEnd(id="1", name="bash", is_error=False, summary="bash pytest -q → exit 0")
    assert tool_end(ok, 80, color=False) == "✔ bash pytest -q → exit 0"
    bad = ToolEnd(
        id="2",
        name="edit_file",
        is_error=True,
        summary="edit_file a.py: error",
        display=DiffDisplay(path="a.py", diff="--- a.py\n+++ a.py\n@@ -1 +1 @@\n-old\n+new"),
    )
    assert tool_end(bad, 80, color=False) == (
        "✗ edit_file a.py: error\n  --- a.py\n  +++ a.py\n  @@ -1 +1 @@\n  -old\n  +new"
    )


def test_a_turn_commits_blocks_and_tool_lines_in_order():
    view = TurnView(width=80, color=False)
    out: list[str] = []
    for event in [
        TextDelta(text="First para"),
        TextDelta(text="graph.\n\nSecond "),
        ToolStart(id="t1", name="read_file", input={"path": "a.py"}),
        ToolEnd(id="t1", name="read_file", is_error=False, summary="read_file a.py (3 lines)"),
        NoteAdded(note=make_note(id="n-1", conclusion="It works.")),
        ErrorEvent(kind="APIError", message="overloaded"),
        TextDelta(text="Done."),
        TurnEnd(stop="done", text="Done.", rounds=2),
    ]:
        out += view.feed(event)
    assert out == [
        "First paragraph.\n",
        "Second\n",
        "✔ read_file a.py (3 lines)",
        "✎ note n-1: It works. (high confidence, completed)",
        "✗ overloaded",
        "Done.\n",
    ]


def test_live_region_shows_the_unfinished_block_and_spinners():
    view = TurnView(width=80, color=False)
    view.feed(TextDelta(text="done block\n\n"))
    view.feed(TextDelta(text="partial"))
    assert view.live(60) == "partial"
    view.feed(ToolStart(id="a", name="bash", input={"command": "sleep 1"}))
    assert view.live(60) == "⠋ bash sleep 1  0s"  # the partial block was committed
    assert view.interrupted() == ["⏹ bash sleep 1 (cancelled)", "⏹ interrupted"]
    assert view.live(60) == ""


def test_a_broken_stream_discards_the_unfinished_text():
    view = TurnView(width=80, color=False)
    view.feed(TextDelta(text="half a rep"))
    (line,) = view.feed(StreamRestart(attempt=1, reason="connection reset"))
    assert "retrying" in line
    assert view.live(60) == "⠋ thinking…  0s · ↓ 0 tokens"  # the broken reply's text is gone


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_the_spinner_shows_the_turns_seconds_and_output_tokens():
    clock = Clock()
    view = TurnView(width=80, color=False, now=clock)
    view.begin()
    clock.t += 12  # the turn began 12 s ago
    assert view.live(60) == "⠋ thinking…  12s · ↓ 0 tokens"
    view.feed(TextDelta(text="x" * 400 + "\n\n"))  # ~100 tokens streamed, not yet counted
    view.feed(ToolStart(id="a", name="bash", input={"command": "make"}))
    view.feed(ToolEnd(id="a", name="bash", is_error=False, summary="bash make"))
    assert view.live(60) == "⠋ thinking…  12s · ↓ 100 tokens"
    view.feed(
        UsageUpdate(
            caller="main",
            input_tokens=10,
            output_tokens=1500,
            cache_read_input_tokens=0,
            cache_creation_input_tokens=0,
            context_tokens=10,
            context_window=200_000,
            session_cost_usd=None,
        )
    )
    assert view.live(60) == "⠋ thinking…  12s · ↓ 1.5k tokens"  # the request's own count


def test_timers_stand_still_while_the_user_is_asked():
    clock = Clock()
    view = TurnView(width=80, color=False, now=clock)
    view.begin()
    clock.t += 2
    view.feed(ToolStart(id="a", name="bash", input={"command": "make"}))
    view.feed(ToolStart(id="b", name="grep", input={"pattern": "x"}))
    with view.asked("a"):  # bash's approval waits 15 s
        clock.t += 15
        assert view.live(60).split("\n") == ["⠋ bash make  0s", "⠋ grep x  15s"]
    clock.t += 1
    assert view.live(60).split("\n") == ["⠋ bash make  1s", "⠋ grep x  16s"]
    with view.asked():  # ask_user's question names no call: every running one stands still
        clock.t += 30
    assert view.live(60).split("\n") == ["⠋ bash make  1s", "⠋ grep x  16s"]
    view.feed(ToolEnd(id="a", name="bash", is_error=False, summary="bash make"))
    view.feed(ToolEnd(id="b", name="grep", is_error=False, summary="grep x"))
    assert view.live(60) == "⠋ thinking…  3s · ↓ 0 tokens"  # 48 s, of which 45 asked


def test_a_call_asked_about_before_its_start_is_shown_starts_held():
    clock = Clock()
    view = TurnView(width=80, color=False, now=clock)
    view.begin()
    with view.asked("a"):  # the approval is asked; the call's start reaches the screen after
        view.feed(ToolStart(id="a", name="bash", input={"command": "make"}))
        clock.t += 15
    clock.t += 1
    assert view.live(60) == "⠋ bash make  1s"


def test_a_question_open_when_its_call_ends_lets_the_turn_go_on():
    clock = Clock()
    view = TurnView(width=80, color=False, now=clock)
    view.begin()
    view.feed(ToolStart(id="a", name="bash", input={"command": "make"}))
    with view.asked("a"):
        clock.t += 5
        view.feed(ToolEnd(id="a", name="bash", is_error=False, summary="bash make"))
    clock.t += 2
    assert view.live(60) == "⠋ thinking…  2s · ↓ 0 tokens"


def test_tool_previews_show_output_reasons_and_counts():
    two = ToolEnd(
        id="1",
        name="bash",
        is_error=False,
        summary="bash python3 -c … → exit 0",
        output="2\n\nexit code: 0",
    )
    assert tool_end(two, 80, color=False) == "✔ bash python3 -c … → exit 0\n  │ 2"
    many = "\n".join(str(i) for i in range(1, 5001)) + "\n\nexit code: 0"
    seq = ToolEnd(
        id="2", name="bash", is_error=False, summary="bash seq 1 5000 → exit 0", output=many
    )
    assert tool_end(seq, 80, color=False).split("\n")[1:] == [
        "  │ 1",
        "  │ 2",
        "  │ 3",
        "  │ 4",
        "  │ +4996 lines",
    ]
    reason = "Read abc.py with read_file before editing it."
    failed = ToolEnd(
        id="3", name="edit_file", is_error=True, summary="edit_file abc.py: error", output=reason
    )
    assert tool_end(failed, 80, color=False) == f"✗ edit_file abc.py: error\n  │ {reason}"
    wide = ToolEnd(
        id="4", name="read_file", is_error=False, summary="read_file a.py", output="x" * 200
    )
    (_, cropped) = tool_end(wide, 40, color=False).split("\n")
    assert len(cropped) == 40
    assert cropped.endswith("…")


def test_a_subagents_spinner_shows_its_tool_count_and_seconds():
    view = TurnView(width=80, color=False)
    view.feed(ToolStart(id="t", name="task", input={"description": "find the bug"}))
    assert view.live(80) == "⠋ task find the bug  0s"
    view.feed(SubagentProgress(id="t", tool_calls=3, elapsed_s=4.2))
    assert view.live(80) == "⠋ task find the bug · 3 tool calls  0s"
    view.feed(ToolEnd(id="t", name="task", is_error=False, summary="task find the bug"))
    assert "tool calls" not in view.live(80)
