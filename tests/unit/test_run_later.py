"""Which workspace files the agent will run outside the sandbox later (issue 50 item 6)."""

from __future__ import annotations

import json
from pathlib import Path

from agent_cli.core.outside.later import workspace_programs
from agent_cli.policy.run_later import commands
from agent_cli.runtime.extensions.settings import parse_all


def _files(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("#!/bin/sh\n")


def test_words_that_are_workspace_files_are_found(tmp_path: Path) -> None:
    _files(tmp_path, "check.sh", "scripts/lint.py", "tools/srv.js")
    found = workspace_programs(
        [
            "./check.sh && echo done",
            "FOO=1 python scripts/lint.py --fix",
            ["node", "tools/srv.js"],
            "python -c 'print(1)'",  # names no file
            "cat ../outside.sh",  # outside the workspace
        ],
        tmp_path,
    )
    assert found == (tmp_path / "check.sh", tmp_path / "scripts/lint.py", tmp_path / "tools/srv.js")


def test_a_link_counts_as_itself_and_its_target_inside(tmp_path: Path) -> None:
    _files(tmp_path, "real/check.sh")
    (tmp_path / "check.sh").symlink_to("real/check.sh")
    (tmp_path / "out.sh").symlink_to("/bin/sh")
    found = workspace_programs(["./check.sh", "./out.sh"], tmp_path)
    assert found == (tmp_path / "check.sh", tmp_path / "real/check.sh", tmp_path / "out.sh")


def test_an_unbalanced_quote_still_names_its_files(tmp_path: Path) -> None:
    _files(tmp_path, "a.sh")
    assert workspace_programs(["sh a.sh 'oops"], tmp_path) == (tmp_path / "a.sh",)


def test_settings_and_trusted_project_files_give_the_commands(tmp_path: Path) -> None:
    settings = parse_all(
        {
            "hooks": {"pre_tool_use": [{"command": "./check.sh"}]},
            "lsp": {"servers": {"x": {"command": ["./ls"], "extensions": [".x"]}}},
            "status_line": {"command": "./status.sh"},
        }
    )
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"m": {"command": "node", "args": ["srv.js"]}}})
    )
    (tmp_path / ".claude").mkdir()
    hook = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./cc.sh"}]}]}}
    (tmp_path / ".claude/settings.json").write_text(json.dumps(hook))
    trusted = commands(settings, tmp_path, trusted=True)
    assert [c if isinstance(c, str) else list(c) for c in trusted] == [
        "./check.sh",
        ["./ls"],
        "./status.sh",
        ["node", "srv.js"],
        "./cc.sh",
    ]
    untrusted = commands(settings, tmp_path, trusted=False)
    assert ["node", "srv.js"] not in untrusted
    assert "./cc.sh" not in untrusted
