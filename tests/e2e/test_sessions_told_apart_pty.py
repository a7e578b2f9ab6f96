"""Sessions told apart (issue 37 item 7), in the real `agent chat` at 80x24 and the shell's
`agent sessions list`: the /rewind picker says what each turn changed, a fork shows its own
prompt and its parent, this session is marked, and both listings give the same message count
in the same order, newest first."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.e2e.checkpoint_support import make_workspace, script_the_turn
from tests.e2e.helpers import run_agent
from tests.e2e.pty_screen import CTRL_D, ChatTerm
from tests.fake_model import FakeAnthropic

ROW = re.compile(r"\s+(\d+) msgs  (.*?)\n     (\S+)")


def test_rewind_picker_forks_and_both_listings(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = make_workspace(tmp_path, repo=True)
    term = ChatTerm(fake_env, workspace, "--permission-mode", "bypass", columns=80, lines=24)
    try:
        term.wait_for("you>")
        script_the_turn(fake_model)
        term.type("change things")
        term.wait_for(lambda t: "All three done." in t and "working…" not in t)
        fake_model.script.text("Nothing to change.")
        term.type("only look")
        term.wait_for(lambda t: "Nothing to change." in t and "working…" not in t)

        term.type("/rewind")
        # the listing reaches scrollback in the next frame (commits are coalesced)
        screen = term.wait_for(lambda t: "Which turn?" in t and "before turn 1" in t)
        assert "[1] back to before turn 2 ('only look'" in screen
        assert "· no file changed" in screen
        assert "[2] back to before turn 1 ('change things'" in screen
        assert "· 4 files changed:" in screen
        assert "a.txt, b.py, c.txt, … 1 more" in screen
        term.send("\x1b")  # Esc: nothing rewound
        term.wait_for(lambda t: "⏹ interrupted" in t and "Which turn?" not in t)

        term.type("/fork")
        forked = term.wait_for("Forked session")
        parent, child = re.findall(r"Forked session (\S+) into (\S+) ", forked)[0]
        fake_model.script.text("Another way.")
        term.type("try another way")
        term.wait_for(lambda t: "Another way." in t and "working…" not in t)
        term.type("/sessions")
        listed = term.wait_for("/resume N")
        rows = {m[3]: (int(m[1]), m[2]) for m in ROW.finditer(listed)}
        assert rows[child][1] == "try another way"
        assert rows[parent][1] == "change things"
        assert f"     {child} · fork of {parent} · ← this session" in listed
        assert f"     {parent}\n" in listed
        assert listed.index(f"     {child}") < listed.index(f"     {parent}\n")  # newest first
        term.send(CTRL_D)
        term.finish()
    finally:
        term.close()

    plain = run_agent(fake_env, workspace, "sessions", "list")
    assert plain.returncode == 0, plain.stderr
    lines = plain.stdout.splitlines()
    assert lines[0].startswith(f"* {child}")
    assert lines[1].startswith(f"  {parent}")
    assert f"try another way  (fork of {parent})" in lines[0]
    assert lines[-1] == "* the session `agent chat --continue` resumes here"
    listing = json.loads(run_agent(fake_env, workspace, "sessions", "--json").stdout)
    counts = {row["id"]: row["messages"] for row in listing}
    assert counts == {sid: count for sid, (count, _) in rows.items()}  # one count everywhere
    assert counts[child] == counts[parent] + 2
    assert [row["id"] for row in listing] == [child, parent]
    assert listing[0]["forked_from"] == parent
    assert listing[0]["continue"] is True


def test_a_bad_flag_is_typers_exit_2(fake_env: dict[str, str], tmp_path: Path):
    bad = run_agent(fake_env, tmp_path, "sessions", "list", "--bogus")
    assert bad.returncode == 2
    assert "--bogus" in bad.stderr
    assert "Traceback" not in bad.stderr
    missing = run_agent(fake_env, tmp_path, "sessions", "list", "-w", str(tmp_path / "nope"))
    assert missing.returncode == 2
    assert "not a directory" in missing.stderr
    empty = run_agent(fake_env, tmp_path, "sessions")
    assert empty.returncode == 0
    assert empty.stdout == "No sessions yet.\n"
