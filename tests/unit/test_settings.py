from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_cli.core.errors import ConfigError
from agent_cli.core.settings.schema import UNKNOWN_MODEL_WINDOW, load_settings


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_workspace_settings_override_user_settings(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    write(
        tmp_path / "cfg" / "agent" / "settings.json",
        {"max_retries": 7, "context": {"snip_target": 20}},
    )
    write(tmp_path / "ws" / ".agent" / "settings.json", {"max_retries": 1})
    settings = load_settings(tmp_path / "ws")
    assert settings.max_retries == 1
    assert settings.context.snip_target == 20  # nested keys merge, not replace
    assert settings.context.snip_trigger == 50


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"nope": 1}, "nope"),
        ({"max_retries": -1}, "max_retries"),
        ({"context": {"snip_trigger": 10, "snip_target": 20}}, "context"),
        ({"permissions": {"mode": "yolo"}}, "permissions.mode"),
    ],
)
def test_bad_settings_name_the_key(tmp_path: Path, monkeypatch, data: dict, key: str):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    write(tmp_path / ".agent" / "settings.json", data)
    with pytest.raises(ConfigError, match=f"'{key}"):
        load_settings(tmp_path)


def test_broken_json_is_a_config_error(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "settings.json").write_text("{")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_settings(tmp_path)


def test_unknown_model_counts_as_200k(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    settings = load_settings(tmp_path, {"model": "some-new-model"})
    assert settings.context_window() == UNKNOWN_MODEL_WINDOW == 200_000


# review finding 10: a bad hook matcher is a settings error, not a hook silently skipped
def test_bad_hook_matcher_is_a_config_error(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    hook = {"command": "x", "matcher": "("}
    write(tmp_path / ".agent" / "settings.json", {"hooks": {"pre_tool_use": [hook]}})
    with pytest.raises(ConfigError, match=r"'hooks\.pre_tool_use\.0\.matcher'"):
        load_settings(tmp_path)
