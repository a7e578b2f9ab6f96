"""`/auto-rules` drafting (issue 54 item 3): what is gathered from a hostile repository is
bounded and stays inside it; the draft is one request with the `rules` tool forced, sent through
the real client to the fake server, validated, and a reply that does not parse is one clear
line."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.settings.schema import Settings
from agent_cli.ext.auto.drafting import (
    FILE_BYTES,
    TOTAL_BYTES,
    DraftError,
    draft,
    gather,
    render,
)
from agent_cli.model.anthropic import AnthropicClient
from tests.fake_model import FakeAnthropic

RULES = [
    "Pushing to feature branches is fine; main is merged through pull requests only.",
    "Dependencies come from PyPI through uv; no other package index.",
    "Never touch infra/.",
]


def _repo(root: Path) -> Path:
    root.mkdir()
    (root / "README.md").write_text("# Widget\nRun `make test` before a pull request.\n")
    workflows = root / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "ci.yml").write_text("jobs:\n  test:\n    steps:\n      - run: uv run pytest\n")
    (root / "CONTRIBUTING.md").symlink_to("/etc/passwd")  # hostile: leads out
    (root / "AGENTS.md").write_text("x" * (1024 * 1024))  # 1 MB
    (root / "Makefile").write_bytes(b"\x7fELF\0\0binary")
    os.mkfifo(root / "CLAUDE.md")  # a read would hang forever
    (root / "package.json").write_text(
        json.dumps({"name": "w", "dependencies": {"x": "1"}, "scripts": {"test": "vitest"}})
    )
    return root


def test_gather_is_bounded_and_never_leaves_the_workspace(tmp_path: Path):
    text = gather(_repo(tmp_path / "repo"))
    assert "=== README.md ===" in text
    assert "make test" in text
    assert "=== .github/workflows/ci.yml ===" in text
    assert "uv run pytest" in text
    assert "root:" not in text
    assert "CONTRIBUTING" not in text  # the link out of the workspace was not followed
    agents = text.split("=== AGENTS.md ===\n", 1)[1].split("\n===", 1)[0]
    assert agents.count("x") == FILE_BYTES  # the 1 MB file, cut
    assert "[... cut at 4 KB]" in agents
    assert "Makefile" not in text
    assert "CLAUDE.md" not in text  # binary, FIFO: skipped
    assert '"scripts"' in text
    assert "vitest" in text
    assert "dependencies" not in text
    assert len(text.encode()) <= TOTAL_BYTES


def test_gather_stops_at_the_total_bound(tmp_path: Path):
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    for i in range(20):  # 20 files of 4 KB each would be 80 KB
        (workflows / f"w{i:02}.yml").write_text(f"# {i}\n" + "y" * 5000)
    text = gather(tmp_path)
    assert TOTAL_BYTES - 200 < len(text.encode()) <= TOTAL_BYTES
    assert "w00.yml" in text
    assert "w19.yml" not in text


def test_a_link_inside_the_workspace_is_read(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "readme.md").write_text("the real readme")
    (tmp_path / "README.md").symlink_to("docs/readme.md")
    assert "the real readme" in gather(tmp_path)


def _draft(fake_model: FakeAnthropic, gathered: str = "=== README.md ===\nhi\n") -> list[str]:
    async def main() -> list[str]:
        client = AnthropicClient(Settings(max_retries=0))
        try:
            return await draft(client, "claude-haiku-4-5", gathered)
        finally:
            await client.close()

    return asyncio.run(main())


@pytest.mark.usefixtures("sdk_env")
def test_draft_forces_the_rules_tool_and_returns_validated_rules(fake_model: FakeAnthropic):
    fake_model.script.tool_use("rules", rules=RULES)
    assert _draft(fake_model, "=== README.md ===\nWIDGET-7\n") == RULES
    (body,) = fake_model.bodies()
    assert body["tool_choice"] == {"type": "tool", "name": "rules"}
    (tool,) = body["tools"]
    assert tool["name"] == "rules"
    assert tool["input_schema"]["properties"]["rules"]["maxItems"] == 12
    assert "thinking" not in body  # a forced tool cannot be combined with thinking
    assert body["model"] == "claude-haiku-4-5"
    assert "WIDGET-7" in json.dumps(body["messages"])


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        ({"text": "Sure! Here are some rules: be nice."}, "did not give rules"),
        ({"rules": "push anywhere"}, "not valid: rules"),
        ({"rules": ["one", "two"]}, "not valid: rules"),  # fewer than 3
        ({"rules": [*RULES[:2], "z" * 201]}, "not valid: rules.2"),
        ({"rules": [*RULES[:2], "two lines\nin one rule"]}, "not valid: rules.2"),
        ({"input": "{not json"}, "could not be read"),
    ],
)
@pytest.mark.usefixtures("sdk_env")
def test_a_reply_that_does_not_parse_is_one_clear_line(
    fake_model: FakeAnthropic, reply: dict[str, Any], said: str
):
    if "text" in reply:
        fake_model.script.text(reply["text"])
    elif "input" in reply:
        fake_model.script.reply([{"type": "tool_use", "name": "rules", "input": reply["input"]}])
    else:
        fake_model.script.tool_use("rules", **reply)
    with pytest.raises(DraftError) as raised:
        _draft(fake_model)
    message = str(raised.value)
    assert said in message
    assert "\n" not in message


def test_render_numbers_the_rules():
    assert render(RULES).splitlines() == [f"{i}. {r}" for i, r in enumerate(RULES, 1)]
