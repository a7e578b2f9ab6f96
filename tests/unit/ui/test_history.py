"""What a resumed session redraws: prompts, replies, one line per tool call, one per compaction."""

from __future__ import annotations

from pathlib import Path

from agent_cli.session.resume import Boundary, RestoredSession
from agent_cli.ui.render.history import history_lines


def test_the_conversation_is_redrawn_in_order(tmp_path: Path):
    restored = RestoredSession(id="s-1", path=tmp_path / "s-1.jsonl", started="2026-01-01T12:00:00")
    restored.history = [
        {"role": "user", "content": "first question"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me **look**."},
                {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a.py"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "SECRET FILE BODY"}
            ],
        },
        Boundary("summary", 3),
        {"role": "user", "content": "second question"},
        {"role": "assistant", "content": "Done."},
    ]
    text = "\n".join(history_lines(restored, 80, color=False))
    order = [
        "s-1",
        "you> first question",
        "Let me look.",
        "✔ read_file a.py",  # the call's line as it was live (issue 37), with its preview
        "│ SECRET FILE BODY",
        "⇣ compacted (summary): 3",
        "you> second question",
        "Done.",
    ]
    positions = [text.index(part) for part in order]
    assert positions == sorted(positions)


def test_ctrl_o_holds_the_resumed_sessions_calls(tmp_path: Path):
    from agent_cli.ui.render.tool_log import ToolLog
    from agent_cli.ui.tool_view import newest_call

    restored = RestoredSession(id="s-2", path=tmp_path / "s-2.jsonl", started="2026-01-01T12:00:00")
    uses = [("t1", "a.py", "BODY OF A", False), ("t2", "gone.py", "no such file", True)]
    restored.history = [{"role": "user", "content": "read both"}]
    for use_id, path, output, failed in uses:
        call = {"type": "tool_use", "id": use_id, "name": "read_file", "input": {"path": path}}
        result = {"type": "tool_result", "tool_use_id": use_id, "content": output}
        restored.history += [
            {"role": "assistant", "content": [call]},
            {"role": "user", "content": [{**result, "is_error": failed}]},
        ]
    log = ToolLog()
    history_lines(restored, 80, color=False, calls=log.feed)
    text = log.text()
    assert log.count() == 2
    assert text.index("── 1. ✔ read_file a.py") < text.index("BODY OF A")
    assert '"path": "a.py"' in text
    assert text[newest_call(text) :].startswith("── 2. ✗ read_file gone.py")
    assert "no such file" in text[newest_call(text) :]
