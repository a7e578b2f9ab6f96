"""The settings of goals, budgets and claims: bounded, and a workspace cannot widen evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_cli.core.errors import ConfigError
from agent_cli.ext.goals.evaluator import judge
from agent_cli.ext.goals.goal import gave_up
from agent_cli.runtime.extensions.settings import parse_all, read_settings


@pytest.fixture(autouse=True)
def _no_user_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def _workspace(tmp_path: Path, data: dict[str, object]) -> Path:
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "settings.json").write_text(json.dumps(data))
    return tmp_path


def test_an_untrusted_workspace_cannot_add_commands_that_count(tmp_path: Path):
    ws = _workspace(tmp_path, {"verify": {"commands": {"tests": ["true"]}}})
    assert read_settings(ws).model_dump()["verify"]["commands"] == {}
    assert read_settings(ws, trusted=True).model_dump()["verify"]["commands"] == {"tests": ["true"]}


def test_bad_values_name_the_key():
    with pytest.raises(ConfigError, match=r"verify\.commands"):
        parse_all({"verify": {"commands": {"speed": ["x"]}}})
    with pytest.raises(ConfigError, match=r"budget\.max_cost_usd"):
        parse_all({"budget": {"max_cost_usd": -1}})
    with pytest.raises(ConfigError, match=r"goal\.max_turns"):
        parse_all({"goal": {"max_turns": 0}})


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("MET: the tests ran green after the edit", "met"),
        ("**Verdict:** NOT MET — nothing ran after the edit", "not met"),
        ("Unmet. The diff is empty.", "not met"),
        ('```json\n{"verdict": "impossible", "reason": "the API is gone"}\n```', "impossible"),
        ("I cannot tell.", "not met"),
    ],
)
def test_the_evaluator_is_read_however_it_answers(reply: str, verdict: str):
    assert judge(reply).verdict == verdict


def test_giving_up_needs_a_reason():
    assert gave_up("GOAL IMPOSSIBLE: the service is down") == "the service is down"
    assert gave_up("Tried.\n**Goal impossible** — no network here") == "no network here"
    assert gave_up("GOAL IMPOSSIBLE:") is None
    assert gave_up("I will say `GOAL IMPOSSIBLE: <the reason>` if needed") is None
    assert gave_up("All done.") is None
