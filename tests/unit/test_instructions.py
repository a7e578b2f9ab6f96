"""Project instructions: AGENTS.md else CLAUDE.md, plus the user's, size-capped."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_cli.core.prompts.instructions import project_instructions


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    (config / "agent").mkdir(parents=True)
    return config / "agent"


def test_agents_md_wins_over_claude_md_and_user_file_comes_first(tmp_path: Path, user_dir: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("Use tabs.\n")
    (ws / "CLAUDE.md").write_text("Use spaces.\n")
    (user_dir / "AGENTS.md").write_text("Answer in English.\n")
    text = project_instructions(ws, 10_000)
    assert "Use tabs." in text
    assert "Use spaces." not in text
    assert text.index("Answer in English.") < text.index("Use tabs.")


def test_claude_md_when_no_agents_md(tmp_path: Path, user_dir: Path):
    (tmp_path / "CLAUDE.md").write_text("Run make test.\n")
    assert "Run make test." in project_instructions(tmp_path, 10_000)


def test_size_cap_prefers_the_project_file(tmp_path: Path, user_dir: Path):
    (tmp_path / "AGENTS.md").write_text("p" * 500)
    (user_dir / "AGENTS.md").write_text("u" * 500)
    text = project_instructions(tmp_path, 300)
    assert "p" * 300 in text
    assert "p" * 301 not in text
    assert "uuu" not in text
    assert "has 500 characters" in text


def test_nothing_without_files_or_with_cap_zero(tmp_path: Path, user_dir: Path):
    assert project_instructions(tmp_path, 10_000) == ""
    (tmp_path / "AGENTS.md").write_text("x")
    assert project_instructions(tmp_path, 0) == ""
