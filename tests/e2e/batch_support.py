"""A git repository, a task file and the fake model's replies for `agent batch` tests."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.fake_model import FakeAnthropic, Script, first_user_contains


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "t@example.com")
    git(path, "config", "user.name", "t")
    (path / "app.txt").write_text("old\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "start")
    return path


def write_tasks(path: Path, tasks: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    return path


def six_tasks() -> list[dict[str, Any]]:
    """Two whose check passes, one whose check fails, one that errors, two without a check."""
    return [
        {"id": "pass-1", "prompt": "[pass-1] create p1.txt", "check": "test -f p1.txt"},
        {"id": "pass-2", "prompt": "[pass-2] change app.txt", "check": "grep -q new app.txt"},
        {"id": "fails", "prompt": "[fails] create f.txt", "check": "test -f missing.txt"},
        {"id": "errors", "prompt": "[errors] anything"},
        {"id": "done-1", "prompt": "[done-1] say hi"},
        {"id": "done-2", "prompt": "[done-2] say bye"},
    ]


def script_six(fake: FakeAnthropic) -> None:
    """Each task's requests are routed by the marker its prompt starts with."""

    def route(marker: str) -> Script:
        return fake.route(first_user_contains(f"[{marker}]"))

    route("pass-1").tool_use("write_file", path="p1.txt", content="one\n").text("Created p1.txt.")
    route("pass-2").tool_use("write_file", path="app.txt", content="new\n").text("Changed it.")
    route("fails").tool_use("write_file", path="f.txt", content="f\n").text("Created f.txt.")
    route("errors").error(400, "invalid_request_error", "this task's request is refused")
    route("done-1").text("Hi.")
    route("done-2").text("Bye.")


def requests_of(fake: FakeAnthropic, marker: str) -> int:
    def first_text(body: dict[str, Any]) -> str:
        content = body["messages"][0]["content"]
        return content if isinstance(content, str) else json.dumps(content)

    return sum(f"[{marker}]" in first_text(b) for b in fake.bodies())


def results(out: Path) -> dict[str, dict[str, Any]]:
    lines = (out / "results.jsonl").read_text().splitlines()
    latest: dict[str, dict[str, Any]] = {}
    for line in lines:
        record = json.loads(line)
        latest[record["id"]] = record
    return latest


EXPECTED = {
    "pass-1": "passed",
    "pass-2": "passed",
    "fails": "failed",
    "errors": "error",
    "done-1": "done",
    "done-2": "done",
}
