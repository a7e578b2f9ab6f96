"""The task file, the results file and the settings a task's run is given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_cli.core.errors import ConfigError, UsageError
from agent_cli.core.settings.schema import load_settings
from agent_cli.ext.batch import results
from agent_cli.ext.batch.batch import wanted
from agent_cli.ext.batch.results import TaskResult
from agent_cli.ext.batch.tasks import parse_tasks
from agent_cli.ext.batch.tree import is_url, tree_name


def test_tasks_take_blank_lines_crlf_and_all_fields():
    text = (
        '{"id": "a", "prompt": "fix it"}\r\n\r\n   \n'
        '{"id": "b.2", "prompt": "p", "repo": "/r", "ref": "v1", "check": "make test",'
        ' "max_cost_usd": 0.5, "settings": {"model": "m"}}\n'
    )
    a, b = parse_tasks(text, "t.jsonl")
    assert (a.id, a.repo, a.check, a.settings) == ("a", None, None, {})
    assert (b.ref, b.check, b.max_cost_usd, b.settings) == ("v1", "make test", 0.5, {"model": "m"})


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[1, 2]", "t.jsonl:1: a task is a JSON object"),
        ('{"id": "a"', "t.jsonl:1: not valid JSON"),
        ('{"prompt": "p"}', "t.jsonl:1: bad field 'id'"),
        ('{"id": "a", "prompt": "   "}', "t.jsonl:1: bad field 'prompt'"),
        ('{"id": "a b", "prompt": "p"}', "t.jsonl:1: bad field 'id'"),
        ('{"id": "a", "prompt": "p", "max_cost_usd": -1}', "bad field 'max_cost_usd'"),
    ],
)
def test_a_bad_line_is_named(line: str, message: str):
    with pytest.raises(UsageError, match=message.replace("[", r"\[")):
        parse_tasks(line + "\n", "t.jsonl")


def test_an_empty_file_is_an_error():
    with pytest.raises(UsageError, match="no tasks"):
        parse_tasks("\n\n", "t.jsonl")


def test_results_keep_the_newest_line_and_skip_a_torn_one(tmp_path: Path):
    path = tmp_path / "results.jsonl"
    results.append(path, TaskResult(id="a", status="error", error="boom"))
    results.append(path, TaskResult(id="b", status="done"))
    results.append(path, TaskResult(id="a", status="passed"))
    with path.open("a") as f:
        f.write('{"id": "c", "status": "do')  # the batch was killed mid-line
    got = results.read(path)
    assert {k: v.status for k, v in got.items()} == {"a": "passed", "b": "done"}
    assert json.loads(path.read_text().splitlines()[0])["error"] == "boom"


@pytest.mark.parametrize(
    ("status", "rerun_failed", "runs"),
    [
        (None, False, True),
        ("error", False, True),
        ("skipped", False, True),
        ("failed", False, False),
        ("failed", True, True),
        ("passed", True, False),
        ("done", False, False),
    ],
)
def test_which_tasks_a_rerun_takes(status: str | None, rerun_failed: bool, runs: bool):
    previous = None if status is None else TaskResult(id="a", status=status)
    assert wanted(previous, rerun_failed) is runs


def test_tree_names_and_urls():
    assert tree_name("abc123", "t1") == "batch-abc123-t1"
    long = tree_name("abc123", "x" * 64)
    assert len(long) <= 64
    assert long.startswith("batch-abc123-")
    assert long != tree_name("abc123", "x" * 63 + "y")
    assert is_url("https://github.com/a/b.git")
    assert is_url("git@github.com:a/b.git")
    assert is_url("file:///srv/repo")
    assert not is_url("/srv/repo")
    assert not is_url("../repo")


def test_agent_settings_is_a_layer_over_the_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("AGENT_SETTINGS", json.dumps({"model": "claude-from-env"}))
    assert load_settings(tmp_path).model == "claude-from-env"
    assert load_settings(tmp_path, {"model": "flag"}).model == "flag"  # the command line wins
    monkeypatch.setenv("AGENT_SETTINGS", '{"model": ')
    with pytest.raises(ConfigError, match="AGENT_SETTINGS: not valid JSON"):
        load_settings(tmp_path)
    monkeypatch.setenv("AGENT_SETTINGS", '{"no_such_key": 1}')
    with pytest.raises(ConfigError, match="AGENT_SETTINGS: bad setting 'no_such_key'"):
        load_settings(tmp_path)
