"""Fixtures of the hostile-repository cases."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    return workspace, outside
