"""Issue 19: model output parsed liberally, validated strictly. A corpus of the liberties a real
model takes, per parser: episodes, notes (in text and through submit_note), summaries, tool
inputs. Each liberty is either read as meant, or refused with a message naming the problem."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.text.lenient_json import LenientError
from agent_cli.core.text.lenient_values import summary_text
from agent_cli.memory.generator import parse_draft
from agent_cli.subagent.note import NoteBody, extract_body
from agent_cli.subagent.submit_note import SubmitNote
from agent_cli.todo.tracker import TodoTracker
from agent_cli.tools.registry import ToolRegistry
from agent_cli.tools.todo_write import TodoWrite
from tests.unit.tool_helpers import call, gated_registry, make_ctx

EP = {"title": "Fix parser crash", "core_problem": "Empty input crashed the parser."}
EP_JSON = json.dumps(EP)
CHANGE = {"file": "src/p.py", "summary": "guard empty input"}

EPISODE_LIBERTIES: list[tuple[str, dict[str, Any]]] = [
    (EP_JSON, {}),
    (f"```json\n{EP_JSON}\n```", {}),
    (f"```\n{EP_JSON}\n```", {}),
    (f"Here is the episode:\n{EP_JSON}\nLet me know if you need more.", {}),
    (json.dumps({"id": "ep-1", **EP}), {}),  # SPEC §10 lists id: a model writes one
    (json.dumps({**EP, "created": "2026-01-01", "session_id": "s"}), {}),
    (json.dumps({"episode": EP}), {}),
    (json.dumps({"coreProblem": EP["core_problem"], "Title": EP["title"]}), {}),
    (json.dumps({"core-problem": EP["core_problem"], "title": EP["title"]}), {}),
    (
        json.dumps({**EP, "open_issues": "perf not measured"}),
        {"open_issues": ["perf not measured"]},
    ),
    (json.dumps({**EP, "open_issues": '["a", "b"]'}), {"open_issues": ["a", "b"]}),
    (
        json.dumps({**EP, "key_decisions": "- guard first\n- test empty"}),
        {"key_decisions": ["guard first", "test empty"]},
    ),
    (json.dumps({**EP, "depends_on": None}), {"depends_on": []}),
    (
        json.dumps({**EP, "code_changes": [{**CHANGE, "lines": "3-9"}]}),
        {"code_changes": [CHANGE | {"symbol": None}]},
    ),
    (
        json.dumps({**EP, "code_fingerprints": ["src/p.py#L3"]}),
        {"code_fingerprints": ["src/p.py#L3-L3"]},
    ),
    (EP_JSON.replace("}", ",}"), {}),  # a trailing comma
    (str({"title": EP["title"], "core_problem": EP["core_problem"], "open_issues": []}), {}),
    (json.dumps(dict(reversed(list(EP.items())))), {}),  # key order
    (f"{{not json}} first, then {EP_JSON}", {}),
    (json.dumps({**EP, "title": "  Fix   parser\ncrash  "}), {"title": "Fix parser crash"}),
    (json.dumps({**EP, "key_decisions": ["", "kept"]}), {"key_decisions": ["kept"]}),
    (f"<episode>{EP_JSON}</episode>", {}),
]


@pytest.mark.parametrize(("reply", "expected"), EPISODE_LIBERTIES)
def test_episode_replies_are_read_as_meant(reply: str, expected: dict[str, Any]):
    draft = parse_draft(reply)
    assert draft.title == "Fix parser crash"
    for key, value in expected.items():
        got = getattr(draft, key)
        got = [c.model_dump() for c in got] if key == "code_changes" else got
        assert got == value


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ('{"title": "t"}', "core_problem"),
        (json.dumps({**EP, "open_issues": 5}), "open_issues"),
        ("no json at all", "no JSON object"),
        (json.dumps({**EP, "code_changes": [{"summary": "x"}]}), "file"),
    ],
)
def test_episode_replies_missing_or_mistyped_fields_are_refused(reply: str, problem: str):
    with pytest.raises(LenientError, match=problem):
        parse_draft(reply)


def test_unknown_episode_keys_are_logged(caplog: pytest.LogCaptureFixture):
    with caplog.at_level(logging.INFO, logger="agent_cli.core.text.lenient_json"):
        parse_draft(json.dumps({"id": "ep-1", **EP}))
    assert "ignored unknown keys" in caplog.text
    assert "id" in caplog.text


NOTE = {"conclusion": "The retry lives in model/anthropic.py.", "confidence": "high"}
NOTE_JSON = json.dumps(NOTE)

NOTE_LIBERTIES: list[tuple[str, dict[str, Any]]] = [
    (NOTE_JSON, {}),
    (f"```json\n{NOTE_JSON}\n```", {}),
    (f"Done. Here is my note:\n{NOTE_JSON}", {}),
    (f"{NOTE_JSON}\nHope that helps!", {}),
    (json.dumps({**NOTE, "id": "n-1", "status": "completed"}), {}),
    (json.dumps({**NOTE, "extra": {"nested": True}}), {}),
    (json.dumps({**NOTE, "confidence": "High"}), {"confidence": "high"}),
    (json.dumps({**NOTE, "confidence": " LOW "}), {"confidence": "low"}),
    (json.dumps({**NOTE, "evidence": "anthropic.py:120"}), {"evidence": ["anthropic.py:120"]}),
    (json.dumps({**NOTE, "evidence": '["a.py:1", "b.py:2"]'}), {"evidence": ["a.py:1", "b.py:2"]}),
    (json.dumps({**NOTE, "file_refs": None}), {"file_refs": []}),
    (json.dumps({**NOTE, "openIssues": ["slow"]}), {"open_issues": ["slow"]}),
    (json.dumps({**NOTE, "File Refs": ["a.py"]}), {"file_refs": ["a.py"]}),
    (json.dumps({"note": NOTE}), {}),
    (json.dumps({"conclusion": NOTE["conclusion"]}), {"confidence": "medium"}),
    (f'{{"conclusion": "draft"}} then the final one: {NOTE_JSON}', {}),  # the last one wins
    (NOTE_JSON.replace("}", ",}"), {}),
    (str(NOTE), {}),  # Python literal quoting
    (
        json.dumps({**NOTE, "evidence": [{"file": "a.py", "line": 3}]}),
        {"evidence": ['{"file": "a.py", "line": 3}']},
    ),
    (json.dumps({**NOTE, "open_issues": "1. slow\n2. flaky"}), {"open_issues": ["slow", "flaky"]}),
    (json.dumps(dict(reversed(list(NOTE.items())))), {}),
]


@pytest.mark.parametrize(("reply", "expected"), NOTE_LIBERTIES)
def test_note_replies_are_read_as_meant(reply: str, expected: dict[str, Any]):
    body = extract_body(reply)
    assert body is not None
    assert body.conclusion in (NOTE["conclusion"],)
    for key, value in {"confidence": "high", **expected}.items():
        assert getattr(body, key) == value


@pytest.mark.parametrize(
    "reply",
    ["no note here", '{"conclusion": ""}', '{"evidence": ["x"]}', '{"conclusion": "x", '
     '"confidence": "certain"}'],
)  # fmt: skip
def test_note_replies_without_a_valid_note_give_none(reply: str):
    assert extract_body(reply) is None


def test_submit_note_ignores_unknown_keys_but_enforces_types(tmp_path: Path):
    received: list[NoteBody] = []
    registry = ToolRegistry([SubmitNote(received.append)])
    ctx = make_ctx(tmp_path)

    def submit(raw: dict[str, Any]) -> Any:
        return asyncio.run(registry.dispatch("submit_note", raw, ctx))

    ok = submit({**NOTE, "id": "n-9", "status": "done", "evidence": "a.py:3"})
    assert not ok.is_error, ok.content
    assert received[-1].evidence == ["a.py:3"]
    bad = submit({**NOTE, "confidence": "certain"})
    assert bad.is_error
    assert "confidence" in bad.content


SUMMARY = "The user asked for X; we changed a.py and b.py; tests pass."
SUMMARY_LIBERTIES = [
    SUMMARY,
    f"  {SUMMARY}\n\n",
    f"```\n{SUMMARY}\n```",
    f"```markdown\n{SUMMARY}\n```",
    f"```text\n{SUMMARY}\n```",
    f"<summary>{SUMMARY}</summary>",
    f"<SUMMARY>\n{SUMMARY}\n</SUMMARY>",
    json.dumps({"summary": SUMMARY}),
    json.dumps({"Summary": SUMMARY}),
    json.dumps({"text": SUMMARY}),
    json.dumps({"summary": SUMMARY, "notes": "ignored"}),
    f"```json\n{json.dumps({'summary': SUMMARY})}\n```",
    f"Here is the summary:\n{SUMMARY}",
    f"Here's a concise summary of the conversation:\n{SUMMARY}",
    f"Below is the summary you asked for:\n\n{SUMMARY}",
    f"```\n<summary>{SUMMARY}</summary>\n```",
    f"<summary>\n```\n{SUMMARY}\n```\n</summary>",
    f"Here is the summary:\n```\n{SUMMARY}\n```",
    f'{{"content": {json.dumps(SUMMARY)}}}',
    json.dumps({"result": SUMMARY}),
]


@pytest.mark.parametrize("reply", SUMMARY_LIBERTIES)
def test_summary_replies_are_read_as_the_summary(reply: str):
    assert summary_text(reply) == SUMMARY


@pytest.mark.parametrize(
    "reply",
    [
        "The file says: here is the summary:\nnot a lead-in",  # prose stays prose
        '{"summary": 5, "other": "x"}',
        "Summary of work:\n- a\n- b",
    ],
)
def test_summary_prose_is_kept_as_written(reply: str):
    assert summary_text(reply) == reply.strip()


def test_an_empty_summary_stays_empty():
    assert summary_text("```\n\n```") == ""
    assert summary_text(json.dumps({"summary": ""})) == json.dumps({"summary": ""})


TODOS = [{"content": "write test", "status": "pending"}]
TOOL_LIBERTIES: list[tuple[str, dict[str, Any], str | None]] = [
    ("read_file", {"path": "a.txt", "limit": "2"}, "     2\tb"),
    ("read_file", {"path": "a.txt", "offset": 2.0, "limit": 1}, "     2\tb"),
    ("read_file", {"path": "a.txt", "offset": None}, "     1\ta"),
    ("read_file", {"limit": 1, "path": "a.txt"}, "     1\ta"),  # key order
    ("read_file", {"path": "a.txt", "limit": "lots"}, "refused:limit"),
    ("read_file", {"path": "a.txt", "colour": "red"}, "refused:colour"),  # unknown: refused, named
    ("read_file", {"file_path": "a.txt"}, "refused:path"),
    ("read_file", {}, "refused:path"),
    ("read_file", {"path": ["a.txt"]}, "refused:path"),
    (
        "edit_file",
        {"path": "a.txt", "old_string": "a\n", "new_string": "A\n", "replace_all": "true"},
        None,
    ),
    (
        "edit_file",
        {"path": "a.txt", "old_string": "b\n", "new_string": "B\n", "replace_all": 0},
        None,
    ),
    (
        "edit_file",
        {"path": "a.txt", "old_string": "c", "new_string": "C", "replaceAll": True},
        "refused:replaceAll",
    ),
    ("todo_write", {"todos": json.dumps(TODOS)}, None),
    ("todo_write", {"todos": f"```json\n{json.dumps(TODOS)}\n```"}, None),
    ("todo_write", {"todos": str(TODOS)}, None),  # a Python literal (SPEC §6)
    ("todo_write", {"todos": TODOS}, None),
    ("todo_write", {"todos": "__import__('os').system('true')"}, "refused:todos"),
    ("glob", {"pattern": "*.txt", "path": None}, "a.txt"),
    ("grep", {"pattern": "b", "ignore_case": "yes"}, "a.txt"),
    ("grep", {"pattern": "b", "context": "1", "output_mode": "content"}, "b"),
    ("grep", {"pattern": "b", "output_mode": "everything"}, "refused:output_mode"),
    ("bash", {"command": "echo hi", "timeout_s": "5"}, "hi"),
    ("bash", {"command": ["echo", "hi"]}, "refused:command"),
    ("bash", {"command": "echo hi", "timeout_s": 10_000}, "refused:timeout_s"),
]


@pytest.mark.parametrize(("name", "raw", "shows"), TOOL_LIBERTIES)
def test_tool_inputs_are_read_as_meant_or_refused_naming_the_field(
    tmp_path: Path, name: str, raw: dict[str, Any], shows: str | None
):
    (tmp_path / "a.txt").write_text("a\nb\nc\n")
    ctx = make_ctx(tmp_path)
    registry = gated_registry(ctx, "bypass").with_tools(TodoWrite(TodoTracker(), lambda _r: None))
    if name == "edit_file":
        call(registry, ctx, "read_file", path="a.txt")
    result = asyncio.run(registry.dispatch(name, raw, ctx, call_id="c1"))
    if shows is not None and shows.startswith("refused:"):
        assert result.is_error, result.content
        assert shows.removeprefix("refused:") in result.content
        return
    assert not result.is_error, result.content
    assert shows is None or shows in result.content


def test_a_whole_tool_input_sent_as_one_json_string_is_read(tmp_path: Path):
    (tmp_path / "a.txt").write_text("a\n")
    ctx = make_ctx(tmp_path)
    registry = gated_registry(ctx, "bypass")
    result = asyncio.run(registry.dispatch("read_file", '{"path": "a.txt"}', ctx))
    assert not result.is_error, result.content
    assert "     1\ta" in result.content
