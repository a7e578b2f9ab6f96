"""`/auto-rules` in `agent chat` at 80x24 (issue 54 item 3): the rules drafted from the
repository in one request are shown numbered, accepted into `.agent/settings.json` (its other
keys kept), shown by `/auto-rules show`, and the next review carries them. The fake server plays
the model, the drafter (its forced `rules` tool) and the reviewer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic

RULES = [
    "Pushing to feature branches is fine.",
    "Dependencies come from PyPI only.",
    "Never touch infra/.",
]


def _forced(name: str) -> Any:
    return lambda body: (body.get("tool_choice") or {}).get("name") == name


def test_auto_rules_drafted_and_accepted_reach_the_next_review(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, sandbox_off: None
) -> None:
    (tmp_path / "README.md").write_text("# Widget\nWork on feature branches; CI runs pytest.\n")
    (tmp_path / ".agent").mkdir()
    settings = tmp_path / ".agent" / "settings.json"
    settings.write_text(json.dumps({"model": "claude-sonnet-4-5", "auto": {"timeout_s": 30}}))
    fake_model.route(_forced("rules")).tool_use("rules", rules=RULES)
    reviewer = fake_model.route(_forced("verdict"))
    reviewer.tool_use("verdict", decision="allow", reason="a feature branch, as the rules say")
    fake_model.script.tool_use("bash", command="touch made.txt").text("Made.")
    env = {**fake_env, "AGENT_TRUST_WORKSPACE": "1"}
    term = ChatTerm(env, tmp_path, "--permission-mode", "auto", columns=80, lines=24)
    try:
        term.wait_for("mode auto")
        term.type("/auto-rules")
        term.wait_for("[a]ccept  [e]dit  [d]iscard")
        screen = term.wait_for("3. Never touch infra/.")
        assert "1. Pushing to feature branches is fine." in screen
        term.send("a")
        term.wait_for("3 auto rules saved in")
        term.type("/auto-rules show")
        term.wait_for("auto rules in effect:")
        term.type("make the file")
        term.wait_for("Made.")
    finally:
        term.close()
    saved = json.loads(settings.read_text())
    assert saved == {"model": "claude-sonnet-4-5", "auto": {"timeout_s": 30, "rules": RULES}}
    [drafting] = [b for b in fake_model.bodies() if _forced("rules")(b)]
    assert "Work on feature branches" in json.dumps(drafting["messages"])
    assert drafting["model"] == "claude-haiku-4-5"  # auto.model, as the reviewer's
    [review] = [b for b in fake_model.bodies() if _forced("verdict")(b)]
    said = json.dumps(review["system"])
    assert all(json.dumps(rule)[1:-1] in said for rule in RULES)
    assert (tmp_path / "made.txt").exists()


def test_auto_rules_edited_in_the_input_are_saved_as_edited(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    fake_model.route(_forced("rules")).tool_use("rules", rules=RULES)
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)  # untrusted workspace
    try:
        term.wait_for("mode default")
        term.type("/auto-rules")
        term.wait_for("[a]ccept  [e]dit  [d]iscard")
        term.send("e")
        term.wait_for("Edit the rules in the input")
        term.wait_for("3. Never touch infra/.")
        term.send("\x1b\r")  # Alt-Enter: a new line at the end of the draft
        term.type("4. Tags are pushed by CI only.")
        screen = term.wait_for("4 auto rules saved in")
        assert "not trusted" in screen.replace("\n", " ")
    finally:
        term.close()
    saved = json.loads((tmp_path / ".agent" / "settings.json").read_text())
    assert saved == {"auto": {"rules": [*RULES, "Tags are pushed by CI only."]}}
    records = [json.loads(line) for f in (tmp_path / ".transcripts").glob("*.jsonl")
               for line in f.read_text().splitlines()]  # fmt: skip
    agents = [r["entry"]["agent"] for r in records if r["type"] == "call"]
    assert agents == ["auto_rules"]  # the draft's cost, counted as its own agent
