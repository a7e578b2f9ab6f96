"""Who decides whether the warm process is used, where it lives, and what retires it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent_cli.cli.warm import place


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return tmp_path


def settings(home: Path, section: object) -> None:
    folder = home / ".config" / "agent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps({"server": section}))


@pytest.mark.parametrize(
    ("env", "enabled", "why"),
    [
        ({}, True, "settings"),
        ({"CI": "true"}, False, "CI"),
        ({"AGENT_NO_SERVER": "1"}, False, "AGENT_NO_SERVER"),
        ({"AGENT_NO_SERVER": "0"}, True, "settings"),
        ({"CI": "1", "AGENT_SERVER": "1"}, True, "AGENT_SERVER"),  # how tests opt in
        ({"AGENT_NO_SERVER": "1", "AGENT_SERVER": "1"}, False, "AGENT_NO_SERVER"),
    ],
)
def test_the_environment_decides_first(home: Path, env: dict[str, str], enabled: bool, why: str):
    chosen = place.choice(env)
    assert (chosen.enabled, chosen.why) == (enabled, why)
    assert chosen.idle_s == 900


def test_the_user_setting_turns_it_off_and_sets_the_idle_time(home: Path):
    settings(home, {"enabled": False, "idle_minutes": 2})
    chosen = place.choice({})
    assert (chosen.enabled, chosen.idle_s) == (False, 120)


@pytest.mark.parametrize(
    "broken", ["{not json", '{"server": 3}', '{"server": {"idle_minutes": -1}}']
)
def test_a_broken_settings_file_leaves_the_defaults(home: Path, broken: str):
    folder = home / ".config" / "agent"
    folder.mkdir(parents=True)
    (folder / "settings.json").write_text(broken)
    chosen = place.choice({})
    assert (chosen.enabled, chosen.idle_s) == (True, 900)


def test_the_setting_is_part_of_the_one_settings_model():
    from agent_cli.core.settings.schema import parse_settings

    parsed = parse_settings({"server": {"enabled": False, "idle_minutes": 5}}, "test")
    assert (parsed.server.enabled, parsed.server.idle_minutes) == (False, 5)


def test_the_private_dir_is_made_0700_and_refused_when_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    folder = place.private_dir()
    assert folder == str(tmp_path / "agent")
    assert Path(folder).stat().st_mode & 0o777 == 0o700
    Path(folder).chmod(0o755)
    with pytest.raises(PermissionError, match="open to others"):
        place.private_dir()


def test_a_symlinked_private_dir_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (tmp_path / "agent").symlink_to(elsewhere)
    with pytest.raises(PermissionError):
        place.private_dir()


def test_without_a_runtime_dir_it_is_per_user_under_tmp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert place.private_dir() == str(tmp_path / f"agent-{os.getuid()}")


def test_a_source_edit_changes_the_version_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    source = package / "sub" / "mod.py"
    source.write_text("x = 1\n")
    monkeypatch.setattr(place, "PACKAGE_DIR", str(package))
    before = place.version_key()
    assert place.version_key() == before
    stamp = source.stat().st_mtime_ns
    os.utime(source, ns=(stamp, stamp + 1_000_000))
    assert place.version_key() != before
    (package / "new.py").write_text("")
    os.utime(package / "new.py", ns=(stamp, stamp))
    os.utime(source, ns=(stamp, stamp))
    assert place.version_key() != before  # a file more: another version too
