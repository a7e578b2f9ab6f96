"""An extension's settings section (issue 58): validated under its name as strictly as any
setting, accepted only when that extension is installed, left unread when it failed to load,
and from an untrusted workspace's own file not applied until trust."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from agent_cli.core.errors import ConfigError
from agent_cli.core.settings.schema import Settings, load_settings
from agent_cli.core.settings.sections import extended
from agent_cli.runtime.extensions import ExtensionSettings


class HelloSettings(ExtensionSettings):
    greeting: str = "Hello"
    times: int = 1


SECTIONS = (("hello", HelloSettings),)


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.delenv("AGENT_SETTINGS", raising=False)
    return tmp_path / "cfg" / "agent" / "settings.json"


def test_a_section_is_validated_by_its_extensions_model(tmp_path: Path, user: Path):
    write(user, {"hello": {"greeting": "Howdy"}})
    settings = load_settings(tmp_path, sections=SECTIONS)
    assert dict(settings)["hello"] == HelloSettings(greeting="Howdy")
    assert settings.max_retries == Settings().max_retries  # the agent's own, untouched


@pytest.mark.parametrize(
    ("section", "key"),
    [({"greting": "Howdy"}, "hello.greting"), ({"times": "often"}, "hello.times")],
)
def test_a_bad_key_in_a_section_names_it(tmp_path: Path, user: Path, section: dict, key: str):
    write(user, {"hello": section})
    with pytest.raises(ConfigError, match=re.escape(f"{user}: bad setting '{key}'")):
        load_settings(tmp_path, sections=SECTIONS)


def test_a_section_nobody_installed_is_an_unknown_key(tmp_path: Path, user: Path):
    write(user, {"hello": {"greeting": "Howdy"}})
    with pytest.raises(ConfigError, match="bad setting 'hello': Extra inputs are not permitted"):
        load_settings(tmp_path)


def test_the_section_of_an_extension_that_failed_to_load_is_left_unread(
    tmp_path: Path, user: Path, monkeypatch: pytest.MonkeyPatch
):
    write(user, {"hello": {"anything": 1}, "max_retries": 7})
    monkeypatch.setenv("AGENT_SETTINGS", '{"hello": {"more": 2}}')
    settings = load_settings(tmp_path, ignored=frozenset({"hello"}))
    assert settings.max_retries == 7
    assert "hello" not in settings.model_dump()


def test_command_line_and_environment_layers_keep_the_section(
    tmp_path: Path, user: Path, monkeypatch: pytest.MonkeyPatch
):
    write(user, {"hello": {"greeting": "Howdy"}})
    monkeypatch.setenv("AGENT_SETTINGS", '{"hello": {"times": 3}}')
    settings = load_settings(tmp_path, {"model": "m"}, sections=SECTIONS)
    assert dict(settings)["hello"] == HelloSettings(greeting="Howdy", times=3)


def test_an_untrusted_workspace_section_waits_for_trust(
    tmp_path: Path, user: Path, caplog: pytest.LogCaptureFixture
):
    write(tmp_path / ".agent" / "settings.json", {"hello": {"greeting": "Pwned"}})
    with caplog.at_level(logging.WARNING):
        settings = load_settings(tmp_path, sections=SECTIONS)
    assert dict(settings)["hello"] == HelloSettings()
    assert "settings for the hello extension are ignored until `agent trust`" in caplog.text
    trusted = load_settings(tmp_path, sections=SECTIONS, trusted=True)
    assert dict(trusted)["hello"].greeting == "Pwned"
    write(tmp_path / ".agent" / "settings.json", {"hello": {"greting": "x"}})
    with pytest.raises(ConfigError, match=re.escape("'hello.greting'")):  # checked, applied or not
        load_settings(tmp_path, sections=SECTIONS)


def fewer_times(local: dict, user: dict) -> dict:
    """A narrow that keeps only a `times` lower than the user's (or 1), nothing else."""
    limit = user.get("times", 1)
    return {"times": local["times"]} if local.get("times", limit) < limit else {}


def test_an_extensions_own_narrow_keeps_what_narrows_before_trust(
    tmp_path: Path, user: Path, caplog: pytest.LogCaptureFixture
):
    write(user, {"hello": {"times": 5}})
    write(tmp_path / ".agent" / "settings.json", {"hello": {"greeting": "Pwned", "times": 2}})
    narrowers = {"hello": fewer_times}
    with caplog.at_level(logging.WARNING):
        settings = load_settings(tmp_path, sections=SECTIONS, narrowers=narrowers)
    assert dict(settings)["hello"] == HelloSettings(times=2)  # the greeting did not stay
    assert "ignored until `agent trust`" not in caplog.text
    write(tmp_path / ".agent" / "settings.json", {"hello": {"times": 9}})  # widens: dropped
    assert dict(load_settings(tmp_path, sections=SECTIONS, narrowers=narrowers))["hello"] == (
        HelloSettings(times=5)
    )
    trusted = load_settings(tmp_path, sections=SECTIONS, trusted=True, narrowers=narrowers)
    assert dict(trusted)["hello"].times == 9


def test_the_extended_model_is_made_once_per_set_of_sections():
    assert extended(Settings, SECTIONS) is extended(Settings, (("hello", HelloSettings),))
    assert extended(Settings, ()) is Settings


def test_a_builtins_own_top_level_key_loads_it_so_a_bad_value_is_refused(
    tmp_path: Path, user: Path
):
    from agent_cli.runtime.extensions.settings import read_settings

    write(user, {"status_line": {"command": "date", "refresh_s": 0}})  # daily's key, not asked
    with pytest.raises(ConfigError, match=r"bad setting 'status_line\.refresh_s'"):
        read_settings(tmp_path, command="run")
    write(user, {"status_line": {"command": "date"}})
    assert read_settings(tmp_path, command="run").model_dump()["status_line"]["command"] == "date"
