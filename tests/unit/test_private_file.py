"""write_private: the owner's eyes only, and whole or not at all."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from agent_cli.core.files.private_file import write_private


def test_a_new_file_in_a_new_folder_is_the_owners_alone(tmp_path: Path) -> None:
    path = tmp_path / "config" / "agent" / "trusted.json"
    write_private(path, '{"a": 1}')
    assert path.read_text(encoding="utf-8") == '{"a": 1}'
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_old_file_readable_by_others_is_replaced_by_a_private_one(tmp_path: Path) -> None:
    path = tmp_path / "rules.json"
    path.write_text("old", encoding="utf-8")
    path.chmod(0o644)
    write_private(path, "new")
    assert path.read_text(encoding="utf-8") == "new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_write_that_fails_keeps_the_old_content_and_leaves_no_stray_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "rules.json"
    path.write_text("old", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        write_private(path, "half \ud800 written")  # a lone surrogate cannot be encoded
    assert path.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rules.json"]
