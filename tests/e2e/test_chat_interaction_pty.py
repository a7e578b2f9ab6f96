"""`agent chat` interaction (issue 15) in a pseudo-terminal: tool previews, stopping, what the
next request carries. The real CLI, the real SDK, the fake model server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_cli.core.history import USER_INTERRUPTED
from tests.e2e.pty_screen import CTRL_C, ChatTerm
from tests.fake_model import FakeAnthropic
from tests.fake_model.wire import split

ESC = "\x1b"


@pytest.fixture
def bypass(fake_env: dict[str, str], tmp_path: Path) -> Iterator[ChatTerm]:
    t = ChatTerm(fake_env, tmp_path, "--permission-mode", "bypass", columns=80)
    t.wait_for("you>")
    yield t
    t.close()


def texts(body: dict[str, object]) -> list[tuple[str, str]]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return [(m["role"], b["text"]) for m in messages for b in m["content"] if b["type"] == "text"]


def test_bash_output_is_previewed(fake_model: FakeAnthropic, bypass: ChatTerm):
    fake_model.script.tool_use("bash", command="python3 -c 'print(1+1)'").text("It printed 2.")
    bypass.type("run it")
    # the reply streams into the live region before the tool line's commit reaches scrollback
    screen = bypass.wait_for(lambda t: "It printed 2." in t and "✔ bash python3 -c" in t)
    lines = screen.split("\n")
    at = next((i for i, line in enumerate(lines) if "✔ bash python3 -c" in line), None)
    assert at is not None, screen
    assert lines[at + 1].strip() == "│ 2"


def test_a_failed_edit_shows_its_reason(
    fake_model: FakeAnthropic, bypass: ChatTerm, tmp_path: Path
):
    (tmp_path / "abc.py").write_text("x = 1\n")
    fake_model.script.tool_use("edit_file", path="abc.py", old_string="x = 1", new_string="x = 2")
    fake_model.script.text("The edit failed.")
    bypass.type("edit it")
    screen = bypass.wait_for(lambda t: "The edit failed." in t and "✗ edit_file abc.py" in t)
    assert "✗ edit_file abc.py" in screen
    assert "read_file" in screen.split("✗ edit_file abc.py", 1)[1]  # the reason, inline


@pytest.mark.parametrize("key", [CTRL_C, ESC], ids=["ctrl-c", "esc"])
def test_a_stopped_reply_stays_in_history_with_the_marker(
    fake_model: FakeAnthropic, bypass: ChatTerm, key: str
):
    reply = "Partial words, then the rest"
    fake_model.script.text(reply, stall_after=4, delay=60)  # one chunk, then a long wait
    fake_model.script.text("second answer")
    bypass.type("slow please")
    bypass.wait_for("Partial")  # the first chunk is on screen, the rest never comes
    bypass.type("queued text")
    bypass.wait_for("(queued: the model reads it at the next tool boundary")
    bypass.send(key)
    bypass.wait_for("interrupted")
    bypass.wait_for(lambda _: bypass.prompt_line() == "you> queued text")  # back in the input
    assert len(fake_model.requests) == 1  # the queued text was not sent
    bypass.send("\r")
    bypass.wait_for("second answer")
    _, second = fake_model.bodies()  # the fake server also checked it against SPEC §16
    assert texts(second) == [
        ("user", "slow please"),
        ("assistant", split(reply)[0]),
        ("user", USER_INTERRUPTED),
        ("user", "queued text"),
    ]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]


SHIFT_TAB = "\x1b[Z"


def test_shift_tab_cycles_the_mode_and_changes_what_is_asked(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "a.txt").write_text("old\n")
    fake_model.script.tool_use("write_file", path="a.txt", content="new\n").text("Written.")
    term = ChatTerm(fake_env, tmp_path, columns=140)
    try:
        term.wait_for("mode default")
        term.send(SHIFT_TAB)
        term.wait_for("mode accept-edits")
        term.type("write it")
        screen = term.wait_for("Written.")
        assert "Allow write_file" not in screen  # accept-edits: edits run unasked
        assert (tmp_path / "a.txt").read_text() == "new\n"
        term.send(SHIFT_TAB)
        term.wait_for("mode plan")
        fake_model.script.tool_use("write_file", path="a.txt", content="plan\n").text("Refused.")
        term.type("write again")
        term.wait_for("Refused.")
        assert (tmp_path / "a.txt").read_text() == "new\n"  # plan: refused, not asked
        term.send(SHIFT_TAB)
        term.wait_for("mode auto")
        term.send(SHIFT_TAB)
        term.wait_for("mode default")
    finally:
        term.close()


def test_model_survives_clear(fake_model: FakeAnthropic, bypass: ChatTerm):
    bypass.type("/model claude-test-other")
    bypass.wait_for("Model: claude-test-other")
    bypass.type("/clear")
    bypass.wait_for("(the previous one: --resume")
    fake_model.script.text("the reply")
    bypass.type("hi")
    bypass.wait_for("the reply")
    assert fake_model.bodies()[-1]["model"] == "claude-test-other"


def all_text(body: dict[str, object]) -> str:
    return "\n".join(text for _, text in texts(body))


def test_bang_command_output_reaches_the_next_request(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    term = ChatTerm(fake_env, tmp_path, columns=80)  # default mode: echo is read-only, unasked
    try:
        term.wait_for("you>")
        term.type("!echo hi-from-the-shell")
        screen = term.wait_for("│ hi-from-the-shell")
        assert "✔ bash echo hi-from-the-shell" in screen
        assert not fake_model.requests  # run by the user, not sent as a prompt
        fake_model.script.text("I see it.")
        term.type("what did it print?")
        term.wait_for("I see it.")
    finally:
        term.close()
    (body,) = fake_model.bodies()
    assert "I ran `echo hi-from-the-shell` in the shell:\nhi-from-the-shell" in all_text(body)


def test_at_file_is_attached(fake_model: FakeAnthropic, bypass: ChatTerm, tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "notes.txt").write_text("the secret word is plum\n")
    (tmp_path / "src" / "other.txt").write_text("no\n")
    fake_model.script.text("Plum.")
    bypass.send("what word is in @ntstx")  # fuzzy, across folders: Tab takes the match
    bypass.wait_for("src/notes.txt")  # the completion menu offers it
    bypass.send("\t")
    bypass.wait_for(lambda t: "you> what word is in @src/notes.txt" in bypass.prompt_line())
    bypass.type("?")
    bypass.wait_for("Plum.")
    (body,) = fake_model.bodies()
    assert "Contents of @src/notes.txt:" in all_text(body)
    assert "the secret word is plum" in all_text(body)


def test_ctrl_o_opens_the_tool_calls_view_searchable_and_esc_returns(
    fake_model: FakeAnthropic, bypass: ChatTerm
):
    fake_model.script.tool_use("bash", command="seq 1 300").text("Counted.")
    bypass.type("count")
    bypass.wait_for("Counted.")
    bypass.wait_idle()
    assert "299" not in bypass.text()  # the preview shows a few lines, not all
    bypass.send("\x0f")  # Ctrl-O
    # the viewer is a screen of its own, drawn in more than one write: read it once it is whole
    view = bypass.wait_for(lambda t: "tool calls" in t and "Esc returns" in t and "1." in t)
    assert "1. ✔ bash seq 1 300" in view
    assert "you>" not in view
    bypass.send("/")
    bypass.send("299")
    bypass.send("\r")  # found: the view scrolls to the match, far below the first screen
    bypass.wait_for(lambda t: "299" in t and "tool calls" in t)
    assert b"\x1b[?1049h" in bypass.raw  # in the alternate screen: scrollback stays untouched
    bypass.send(ESC)
    bypass.wait_for(lambda t: "you>" in t and "tool calls" not in t, 10)
    assert bypass.raw.rindex(b"\x1b[?1049l") > bypass.raw.rindex(b"\x1b[?1049h")  # left it
    bypass.type("/help all")  # the chat screen takes input as before
    bypass.wait_for("every tool call of the session")  # /help's line for Ctrl-O


def test_ctrl_r_finds_an_earlier_prompt(fake_model: FakeAnthropic, bypass: ChatTerm):
    fake_model.script.text("One.").text("Two.").text("Three.")
    bypass.type("the walrus prompt")
    bypass.wait_for("One.")
    bypass.wait_idle()
    bypass.type("another one")
    bypass.wait_for("Two.")
    bypass.wait_idle()
    bypass.send("\x12")  # Ctrl-R
    bypass.send("walr")
    bypass.wait_for(lambda t: "walr" in t and "the walrus prompt" in bypass.prompt_line())
    bypass.send("\r")  # takes the match into the input box
    bypass.wait_for(lambda t: bypass.prompt_line() == "you> the walrus prompt")
    bypass.send("\r")  # and sends it
    bypass.wait_for("Three.")
    assert texts(fake_model.bodies()[-1])[-1] == ("user", "the walrus prompt")
