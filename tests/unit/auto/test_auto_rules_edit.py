"""`/auto-rules` edit path (issue 54 item 3): the user's edited numbered draft is read back one
rule per non-empty line, numbering stripped, validated as a draft is; `set` writes it into the
workspace's `.agent/settings.json` under `auto.rules`, every other key kept, and says when the
workspace is untrusted (its auto section ignored until `agent trust`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_cli.core.errors import ConfigError
from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.ext.auto.chat import auto_rules_command
from agent_cli.ext.auto.drafting import render
from agent_cli.ext.auto.project_rules import parse_edited, save
from agent_cli.runtime.extensions.contract import ExtensionContext

RULES = ["Pushing to feature branches is fine.", "Use uv, never pip.", "Never touch infra/."]


class Port:
    """The chat as the command sees it: what it said is kept."""

    def __init__(self, workspace: Path) -> None:
        self.context = ExtensionContext(
            "auto", workspace, Paths(workspace / ".agent"), Settings(), "s1"
        )
        self.said: list[tuple[str, str]] = []

    def say(self, text: str, style: str = "") -> None:
        self.said.append((text, style))

    def send(self, text: str) -> None:
        raise AssertionError("no turn")

    def columns(self) -> int:
        return 80

    @property
    def front(self) -> object:
        return None


def test_an_edited_draft_reads_back_one_rule_per_line_numbering_stripped() -> None:
    edited = render(RULES).replace("2. Use uv, never pip.", "2)   Use uv; never pip or conda.")
    edited += "\n\n  - Tags are pushed by CI only.\n"
    assert parse_edited(edited) == [
        RULES[0], "Use uv; never pip or conda.", RULES[2], "Tags are pushed by CI only."
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("1. only one\n2. two", "auto rules not saved: List should have at least 3 items"),
        (render([*RULES, "x" * 201]), "auto rules not saved: rule 4: String should have at most"),
        (render(RULES * 5), "List should have at most 12 items"),
    ],
    ids=["too-few", "too-long", "too-many"],
)
def test_an_edit_that_does_not_validate_is_one_line(text: str, said: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_edited(text)
    assert said in str(e.value)
    assert "\n" not in str(e.value)


def test_set_saves_the_edit_keeping_the_other_keys_and_says_untrusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no trust granted
    monkeypatch.delenv("AGENT_TRUST_WORKSPACE", raising=False)
    settings = tmp_path / ".agent" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps({"permissions": {"allow": ["Bash(ls)"]}, "auto": {"model": "same"}})
    )
    port = Port(tmp_path)
    assert auto_rules_command(port, "set\n" + render(RULES)) is None
    assert json.loads(settings.read_text()) == {
        "permissions": {"allow": ["Bash(ls)"]},
        "auto": {"model": "same", "rules": RULES},
    }
    said = " ".join(text for text, _ in port.said)
    assert "3 auto rules saved" in said
    assert "not trusted" in said
    assert "agent trust" in said
    assert port.context.settings.auto.rules == []  # untrusted: not this session's either
    assert [p.name for p in settings.parent.iterdir()] == ["settings.json"]  # no temp left


def test_set_in_a_trusted_workspace_is_this_sessions_rules_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TRUST_WORKSPACE", "1")
    port = Port(tmp_path)
    auto_rules_command(port, "set\n" + render(RULES))
    assert port.context.settings.auto.rules == RULES
    auto_rules_command(port, "show")
    assert "auto rules in effect:\n  1. Pushing to feature branches is fine." in port.said[-1][0]
    assert not any("not trusted" in text for text, _ in port.said)


def test_a_settings_file_that_is_not_json_is_not_clobbered(tmp_path: Path) -> None:
    settings = tmp_path / ".agent" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        save(tmp_path, RULES)
    assert settings.read_text() == "{not json"
