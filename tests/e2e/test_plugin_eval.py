"""`agent plugin eval` end to end: real `agent run`s, each in a real git worktree, against the
fake model, which does better when the system prompt lists the plugin's skill. The report's
figures are checked against what the runs did: their diffs, transcripts and JSON results."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.plugin_eval_support import (
    CASES,
    Model,
    git,
    install,
    make_repo,
    plugin_eval,
    results,
    transcript,
    with_plugin,
    write_cases,
    write_plugin,
)
from tests.fake_model import FakeAnthropic

# each run is a whole `agent run` subprocess: twelve on a loaded 2-core machine take a while
pytestmark = pytest.mark.timeout(300)


def passed(case: str, result: dict[str, Any], out: Path) -> bool:
    """Whether the run did what its case asks, judged from what it left: its diff (written
    by the batch from the worktree before removing it) and its transcript."""
    if result["status"] not in ("passed", "done", "failed"):
        return False
    diff_file = out / f"{result['id']}.diff"
    diff = diff_file.read_text() if diff_file.is_file() else ""
    answer, used = transcript(result)
    if case == "notes":
        return "+++ b/NOTES.md" in diff and any(u.startswith("notes:") for u in used)
    if case == "codename":
        return re.search("codename is [A-Z]{4,}", answer) is not None
    return "\n+fixed\n" in diff and "write_file" in used


def expected_arm(runs: list[tuple[dict[str, Any], bool]]) -> dict[str, Any]:
    turns = [r["turns"] for r, _ in runs]
    cost = sum(r["cost_usd"] for r, _ in runs)
    return {
        "runs": len(runs),
        "passed": sum(ok for _, ok in runs),
        "pass_rate": sum(ok for _, ok in runs) / len(runs),
        "mean_turns": sum(turns) / len(turns),
        "cost_usd": cost,
        "mean_cost_usd": cost / len(runs),
    }


def same(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=1e-6), key


def repo_with_plugin(env: dict[str, str], tmp_path: Path, *, enabled: bool) -> Path:
    repo = make_repo(tmp_path / "repo")
    install(env, repo, write_plugin(tmp_path / "notes-plugin"), enabled=enabled)
    return repo


@pytest.fixture
def installed(fake_env: dict[str, str], tmp_path: Path) -> Path:
    """A repository, and the plugin installed and enabled (the eval's runs without it turn it
    off with AGENT_PLUGINS_OFF)."""
    return repo_with_plugin(fake_env, tmp_path, enabled=True)


def test_three_cases_two_runs_each_way(
    fake_model: FakeAnthropic, fake_env: dict[str, str], installed: Path, tmp_path: Path
):
    Model(fake_model)
    out = tmp_path / "out"
    # the command checks run as batch's do: confined by the sandbox, without credentials
    escaped = tmp_path / "escaped.txt"
    confined = f'touch {escaped}; test -z "${{ANTHROPIC_API_KEY:-}}"'
    fix = {**CASES[2], "checks": [*CASES[2]["checks"], {"command": confined}]}
    cases = write_cases(tmp_path / "cases.json", [*CASES[:2], fix])
    proc = plugin_eval(
        fake_env, installed, "notes", "--cases", str(cases), "--runs", "2", "--jobs", "2",
        "--permission-mode", "accept-edits", "--out", str(out), "--json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["plugin"] == "notes@local"
    assert set(report) == {"plugin", "runs_per_arm", "cases", "overall", "not_made", "spent_usd",
                           "max_cost_usd", "out", "runs"}  # fmt: skip
    assert set(report["runs"][0]) == {"id", "case", "arm", "n", "made", "passed", "status",
                                      "turns", "cost_usd", "failed_checks", "error",
                                      "kept_worktree"}  # fmt: skip
    assert set(report["overall"]["difference"]) == {"pass_rate", "mean_turns", "mean_cost_usd"}
    assert (report["runs_per_arm"], report["max_cost_usd"], report["out"]) == (2, None, str(out))
    assert report == json.loads((out / "report.json").read_text())
    ran = results(out)
    assert len(ran) == 12
    assert report["not_made"] == 0
    judged = {i: (r, passed(i.split(".")[0], r, out)) for i, r in ran.items()}
    overall: dict[str, list[tuple[dict[str, Any], bool]]] = {"with": [], "without": []}
    for case, got in zip(CASES, report["cases"], strict=True):
        assert got["id"] == case["id"]
        for arm in ("with", "without"):
            mine = [judged[f"{case['id']}.{arm}.{n}"] for n in (1, 2)]
            overall[arm] += mine
            same(got[arm], expected_arm(mine))
    for arm in ("with", "without"):
        same(report["overall"][arm], expected_arm(overall[arm]))
    w, wo = report["overall"]["with"], report["overall"]["without"]
    assert report["overall"]["difference"]["pass_rate"] == pytest.approx(
        w["pass_rate"] - wo["pass_rate"]
    )
    # the plugin made the difference: every request of a run with it listed its skill, and
    # none of one without; the runs with it all passed, and without fewer did
    with_turns = sum(r["turns"] for i, (r, _) in judged.items() if ".with." in i)
    assert sum(with_plugin(b) for b in fake_model.bodies()) == with_turns
    assert len(fake_model.bodies()) == sum(r["turns"] for r in ran.values())
    assert w["pass_rate"] == 1.0
    assert wo["pass_rate"] < 1.0
    assert all(r["cost_usd"] > 0 for r in ran.values())
    spent = sum(r["cost_usd"] for r in ran.values())
    assert report["spent_usd"] == pytest.approx(spent, abs=1e-6)  # rounded to a millionth
    assert not escaped.exists()
    # every run had its own tree, removed after it unless it failed having changed something
    kept = {r["kept_worktree"] for r in ran.values() if r["kept_worktree"]}
    assert git(installed, "worktree", "list").count("\n") == 1 + len(kept)
    assert git(installed, "status", "--porcelain") == ""
    assert (installed / "app.txt").read_text() == "broken\n"


def test_max_cost_stops_starting_runs(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    """The plugin installed but disabled: the run with it is enabled by AGENT_PLUGINS_ON."""
    installed = repo_with_plugin(fake_env, tmp_path, enabled=False)
    Model(fake_model)
    out = tmp_path / "out"
    cases = write_cases(tmp_path / "cases.json", CASES[1:2])
    proc = plugin_eval(
        fake_env, installed, "notes", "--cases", str(cases), "--runs", "2", "--jobs", "1",
        "--max-cost", "0.000001", "--out", str(out), "--model", "claude-haiku-4-5",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    ran = results(out)
    made = [i for i, r in ran.items() if r["status"] != "skipped"]
    assert made == ["codename.with.1"]  # the first run spent the money: no other started
    assert len(fake_model.bodies()) == ran["codename.with.1"]["turns"]
    assert {b["model"] for b in fake_model.bodies()} == {"claude-haiku-4-5"}  # --model
    assert "3 runs not made: the --max-cost of $0.00 was spent" in proc.stdout
    report = json.loads((out / "report.json").read_text())
    assert report["not_made"] == 3
    assert report["overall"]["with"]["runs"] == 1
    assert report["overall"]["with"]["passed"] == 1  # its skill was listed: enabled for the run
    assert with_plugin(fake_model.bodies()[0])
    assert report["overall"]["without"] == {
        "runs": 0, "passed": 0, "pass_rate": None, "mean_turns": None, "cost_usd": 0.0,
        "mean_cost_usd": None,
    }  # fmt: skip
    assert report["overall"]["difference"]["pass_rate"] is None
    assert "codename" in proc.stdout
    assert "all" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_a_run_that_errors_is_counted_failed_and_the_eval_exits_1(
    fake_model: FakeAnthropic, fake_env: dict[str, str], installed: Path, tmp_path: Path
):
    fake_model.script.error(400, "invalid_request_error", "refused").text("The codename is HERON.")
    cases = write_cases(tmp_path / "cases.json", CASES[1:2])
    out = tmp_path / "out"
    proc = plugin_eval(
        fake_env, installed, "notes", "--cases", str(cases), "--runs", "1", "--jobs", "1",
        "--out", str(out), "--json",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    first, second = report["runs"]
    assert (first["status"], first["passed"]) == ("error", False)
    assert "refused" in first["error"]
    assert (second["status"], second["passed"]) == ("done", True)
    assert report["overall"]["with"]["passed"] == 0
    assert report["overall"]["without"]["passed"] == 1
    assert report["overall"]["difference"]["pass_rate"] == -1.0
    assert "codename.with.1: error" in proc.stderr


@pytest.mark.parametrize(
    ("cases", "line"),
    [
        ('[{"id": "a", "prompt": "x", "checks": [{"answer_matches": "("}]}]',
         "case 'a': checks.0.answer_matches: Value error, not a regular expression"),
        ('[{"id": "a", "prompt": "x", "checks": [{"file_exists": "a", "command": "b"}]}]',
         "case 'a': checks.0: Value error, a check has exactly one of"),
        ('[{"id": "a", "prompt": "x"}, {"id": "b", "prompt": "y", "colour": 1}]',
         "case 'b': colour: Extra inputs are not permitted"),
        ('[{"id": "a/b", "prompt": "x"}]', "case 'a/b': id: Value error"),
        ('[{"id": "a", "prompt": "x", "checks": [{"file_exists": "../up"}]}]',
         "case 'a': checks.0.file_exists: Value error, a relative path inside"),
        ('[{"prompt": "x"}]', "case 1: id: Field required"),
        ("{", "not valid JSON"),
    ],
)  # fmt: skip
def test_a_bad_cases_file_is_one_line_naming_case_and_key(
    fake_env: dict[str, str], installed: Path, tmp_path: Path, cases: str, line: str
):
    path = tmp_path / "cases.json"
    path.write_text(cases)
    proc = plugin_eval(fake_env, installed, "notes", "--cases", str(path))
    assert proc.returncode == 2
    assert line in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (installed / ".agent" / "eval").exists()  # nothing ran


def test_a_plugin_not_installed_or_no_repository_is_one_line(
    fake_env: dict[str, str], installed: Path, tmp_path: Path
):
    cases = write_cases(tmp_path / "cases.json")
    proc = plugin_eval(fake_env, installed, "nothere", "--cases", str(cases))
    assert proc.returncode == 2
    assert proc.stderr == "agent: no installed plugin 'nothere' (see `agent plugin list`)\n"
    proc = plugin_eval(fake_env, installed, "notes@elsewhere", "--cases", str(cases))
    assert proc.returncode == 2
    assert proc.stderr == "agent: no installed plugin 'notes@elsewhere' (see `agent plugin list`)\n"
    elsewhere = tmp_path / "not-a-repo"
    elsewhere.mkdir()
    proc = plugin_eval(fake_env, elsewhere, "notes", "--cases", str(cases))
    assert proc.returncode == 2
    assert (
        proc.stderr
        == f"agent: {elsewhere}: not inside a git repository (each eval run is a worktree)\n"
    )
