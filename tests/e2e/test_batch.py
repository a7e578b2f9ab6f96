"""`agent batch` end to end: the real CLI runs real `agent run`s in real git worktrees against
the fake model server; the Ray engine on a real local Ray instance."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.batch_support import (
    EXPECTED,
    git,
    make_repo,
    requests_of,
    results,
    script_six,
    six_tasks,
    write_tasks,
)
from tests.e2e.helpers import REPO, run_agent
from tests.fake_model import FakeAnthropic, first_user_contains

# each task is a whole `agent run` subprocess: a loaded 2-core machine needs minutes for six
pytestmark = pytest.mark.timeout(300)


def batch(env: dict[str, str], repo: Path, *args: str, timeout: float = 280):
    return run_agent(env, repo, "batch", *args, timeout=timeout)


def test_six_tasks_at_three_jobs(fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path):
    repo = make_repo(tmp_path / "repo")
    script_six(fake_model)
    tasks = write_tasks(tmp_path / "tasks.jsonl", six_tasks())
    out = tmp_path / "out"
    status_before = git(repo, "status", "--porcelain")
    proc = batch(
        fake_env, repo, str(tasks), "--jobs", "3", "--out", str(out),
        "--permission-mode", "accept-edits",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # one failed and one errored: not all passed
    assert "Traceback" not in proc.stderr
    got = results(out)
    assert {k: v["status"] for k, v in got.items()} == EXPECTED
    assert len((out / "results.jsonl").read_text().splitlines()) == 6
    assert "+one" in (out / "pass-1.diff").read_text()
    assert "-old\n+new" in (out / "pass-2.diff").read_text()
    assert got["done-1"]["diff"] is None
    assert not (out / "done-1.diff").exists()
    assert got["fails"]["check_exit"] == 1
    assert "refused" in got["errors"]["error"]
    assert got["pass-1"]["session_id"]
    assert Path(got["pass-1"]["transcript"]).is_file()
    assert sum(got["pass-1"]["tokens"].values()) > 0
    assert got["pass-1"]["exit_code"] == 0
    # the user's checkout is as it was: same branch, same files, no new ones
    assert (repo / "app.txt").read_text() == "old\n"
    assert git(repo, "status", "--porcelain") == status_before
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    # only the failed task that changed something keeps its tree, and the summary names it
    kept = [v["kept_worktree"] for v in got.values() if v["kept_worktree"]]
    assert len(kept) == 1
    assert got["fails"]["kept_worktree"] == kept[0]
    assert (Path(kept[0]) / "f.txt").read_text() == "f\n"
    listed = git(repo, "worktree", "list", "--porcelain").count("worktree ")
    assert listed == 2  # the checkout and the kept one
    assert f"kept {kept[0]}" in proc.stdout
    assert "2 done · 1 error · 1 failed · 2 passed" in proc.stdout


def test_json_output_and_a_clone_of_a_url(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path
):
    source = make_repo(tmp_path / "source")
    first = git(source, "rev-parse", "HEAD").strip()
    (source / "app.txt").write_text("second\n")
    git(source, "commit", "-q", "-am", "second")
    fake_model.route(first_user_contains("[clone]")).tool_use("read_file", path="app.txt").text(
        "It says old."
    )
    task = {"id": "clone", "prompt": "[clone] read app.txt", "repo": f"file://{source}",
            "ref": first, "check": "grep -qx old app.txt"}  # fmt: skip
    tasks = write_tasks(tmp_path / "t.jsonl", [task])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = batch(fake_env, elsewhere, str(tasks), "--out", str(tmp_path / "o"), "--json")
    assert proc.returncode == 0, proc.stderr
    (record,) = json.loads(proc.stdout)
    assert record["status"] == "passed"
    assert record["check_exit"] == 0
    assert record["kept_worktree"] is None
    assert list((tmp_path / "o" / "clones").iterdir()) == []  # the clone is gone


def test_bad_task_file_exits_2(fake_env: dict[str, str], tmp_path):
    repo = make_repo(tmp_path / "repo")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "prompt": "x"}\n{"id": "a", "prompt": "y"}\n')
    proc = batch(fake_env, repo, str(bad))
    assert proc.returncode == 2
    assert "bad.jsonl:2: task id 'a' is used already (line 1)" in proc.stderr
    bad.write_text('{"id": "../x", "prompt": "x"}\n')
    proc = batch(fake_env, repo, str(bad))
    assert proc.returncode == 2
    assert "bad.jsonl:1: bad field 'id'" in proc.stderr
    bad.write_text('{"id": "a", "prompt": "x", "colour": 1}\n')
    proc = batch(fake_env, repo, str(bad))
    assert proc.returncode == 2
    assert "'colour'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_ray_engine_without_ray_exits_2_saying_how_to_install(fake_env: dict[str, str], tmp_path):
    repo = make_repo(tmp_path / "repo")
    hide = tmp_path / "no-ray" / "ray"
    hide.mkdir(parents=True)
    (hide / "__init__.py").write_text("raise ImportError('No module named ray')\n")
    tasks = write_tasks(tmp_path / "t.jsonl", [{"id": "a", "prompt": "x"}])
    env = {**fake_env, "PYTHONPATH": f"{hide.parent}:{REPO}"}
    argv = [sys.executable, "-m", "agent_cli", "batch", str(tasks), "--engine", "ray"]
    proc = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "--engine ray needs Ray: pip install 'agent-cli[ray]'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_max_cost_skips_the_rest(fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path):
    repo = make_repo(tmp_path / "repo")
    tasks = [{"id": f"t{i}", "prompt": f"[t{i}] hello"} for i in range(4)]
    for i in range(4):
        fake_model.route(first_user_contains(f"[t{i}]")).text("Hello.")
    out = tmp_path / "out"
    path = write_tasks(tmp_path / "t.jsonl", tasks)
    proc = batch(
        fake_env, repo, str(path), "--jobs", "1", "--out", str(out), "--max-cost", "0.000001"
    )
    assert proc.returncode == 1, proc.stderr
    got = results(out)
    assert got["t0"]["status"] == "done"
    assert got["t0"]["cost_usd"] > 0.000001
    assert [got[f"t{i}"]["status"] for i in (1, 2, 3)] == ["skipped"] * 3
    assert sum(requests_of(fake_model, f"t{i}") for i in (1, 2, 3)) == 0
    assert "3 skipped: the --max-cost was spent before they could start" in proc.stdout


def _agent_runs_under(root: Path) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if str(root) in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_killed_batch_resumes_without_rerunning_the_finished(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path
):
    repo = make_repo(tmp_path / "repo")
    tasks = [{"id": f"k{i}", "prompt": f"[k{i}] slowly"} for i in range(5)]
    for i in range(5):  # a second reply for a task cut off by the kill and run again
        fake_model.route(first_user_contains(f"[k{i}]")).text("Slow.", delay=1.0).text("Again.")
    out = tmp_path / "out"
    path = write_tasks(tmp_path / "t.jsonl", tasks)
    env = {**fake_env, "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "agent_cli", "batch", str(path), "--jobs", "1", "--out", str(out)]
    proc = subprocess.Popen(argv, cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        lines = (
            (out / "results.jsonl").read_text().splitlines()
            if (out / "results.jsonl").exists()
            else []
        )
        if len(lines) >= 2:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    finished = set(results(out))
    assert len(finished) in (2, 3)  # killed while the next one ran
    time.sleep(1.5)
    assert _agent_runs_under(out) == []  # the runs died with the batch
    proc2 = batch(fake_env, repo, str(path), "--jobs", "2", "--out", str(out))
    assert proc2.returncode == 0, proc2.stderr
    got = results(out)
    assert {v["status"] for v in got.values()} == {"done"}
    assert len(got) == 5
    for task_id in finished:
        assert requests_of(fake_model, task_id) == 1, task_id  # not run again
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 1


def test_ray_engine_same_statuses(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path, monkeypatch: pytest.MonkeyPatch
):
    ray = pytest.importorskip("ray")
    repo = make_repo(tmp_path / "repo")
    script_six(fake_model)
    tasks = write_tasks(tmp_path / "tasks.jsonl", six_tasks())
    out = tmp_path / "out"
    fake_env = {**fake_env, "RAY_AUTH_MODE": "disabled"}  # a local instance, this user's alone
    for name, value in fake_env.items():  # the instance's workers start with the test's env
        monkeypatch.setenv(name, value)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        address = ray.get_runtime_context().gcs_address
        proc = batch(
            fake_env, repo, str(tasks), "--engine", "ray", "--address", address,
            "--jobs", "3", "--out", str(out), "--permission-mode", "accept-edits",
        )  # fmt: skip
    finally:
        ray.shutdown()
    assert proc.returncode == 1, proc.stdout + proc.stderr
    got = results(out)
    assert {k: v["status"] for k, v in got.items()} == EXPECTED
    assert "+one" in (out / "pass-1.diff").read_text()
    assert "ray engine" in proc.stdout


def test_a_tasks_own_budget_and_settings_reach_its_run(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path
):
    repo = make_repo(tmp_path / "repo")
    fake_model.route(first_user_contains("[cheap]")).tool_use(
        "write_file", path="c.txt", content="c\n"
    ).text("Done.")
    fake_model.route(first_user_contains("[model]")).text("Hi.")
    tasks: list[dict[str, Any]] = [
        {"id": "cheap", "prompt": "[cheap] write c.txt", "max_cost_usd": 0.001},
        {"id": "model", "prompt": "[model] hi", "settings": {"model": "claude-batch-test"}},
    ]
    out = tmp_path / "out"
    path = write_tasks(tmp_path / "t.jsonl", tasks)
    proc = batch(fake_env, repo, str(path), "--out", str(out), "--permission-mode", "bypass")
    assert proc.returncode == 1, proc.stderr
    got = results(out)
    # the first reply spent more than $0.001: the request after the tool's result is never sent
    assert got["cheap"]["status"] == "error"
    assert requests_of(fake_model, "cheap") == 1
    assert "budget" in got["cheap"]["error"].lower()
    assert got["model"]["status"] == "done"
    models = {b["model"] for b in fake_model.bodies() if "[model]" in json.dumps(b["messages"][0])}
    assert models == {"claude-batch-test"}
