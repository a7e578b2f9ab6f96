"""What the registry does with a finished result: secrets redacted from every part, a long
result saved under the one file name that context/results uses too."""

from __future__ import annotations

import json
from pathlib import Path

from agent_cli.context.results import save_result
from agent_cli.core.payloads import DiffDisplay
from agent_cli.core.settings.schema import Settings
from agent_cli.core.text.redaction import redact_value
from agent_cli.core.tool_contract import ToolResult
from agent_cli.tools.registry import finish_result
from tests.unit.tool_helpers import make_ctx

KEY = "sk-unit-" + "q" * 24


def test_display_and_summary_are_redacted(tmp_path: Path):
    ctx = make_ctx(tmp_path)
    ctx.secrets = (KEY,)
    display = DiffDisplay(path=f"{KEY}.txt", diff=f" KEY={KEY}\n+x")
    result = ToolResult(f"saw {KEY}", summary=f"bash echo {KEY}", display=display)
    finished = finish_result(result, ctx, "bash", "call_1")
    assert isinstance(finished.display, DiffDisplay)  # still the typed payload
    shown = [finished.content, finished.summary, finished.display.model_dump()]
    assert KEY not in json.dumps(shown)
    assert finished.display.diff == " KEY=[redacted]\n+x"
    assert redact_value({"lines": [KEY, 3]}, (KEY,))["lines"] == ["[redacted]", 3]


def test_saved_results_share_one_file_name(tmp_path: Path):
    ctx = make_ctx(tmp_path)
    ctx.settings = Settings(tool_result_limit_chars=1_000, tool_preview_chars=200)
    finish_result(ToolResult("x" * 5_000), ctx, "bash", "toolu/01!")
    folder = ctx.paths.tool_results(ctx.session_id)
    (saved,) = folder.iterdir()
    assert saved.name == "toolu01.txt"

    class Ref:  # what context/results saves when it clears an old result
        text, tool_use_id = "x" * 5_000, "toolu/01!"

    assert save_result(Ref(), folder, ctx.paths.transcripts) == saved  # type: ignore[arg-type]
