"""A plugin with one skill, three eval cases, and a fake model that behaves better when the
system prompt lists the plugin's skill: what `agent plugin eval` tests run against."""

from __future__ import annotations

import itertools
import json
import subprocess
import threading
from pathlib import Path
from typing import Any

from tests.e2e.helpers import run_agent
from tests.fake_model import FakeAnthropic, Script, first_user_contains

SKILL_MARK = "release-notes-in-the-house-style"  # in the skill's description: the system prompt


def plugin_eval(env: dict[str, str], repo: Path, *args: str, timeout: float = 280):
    return run_agent(env, repo, "plugin", "eval", *args, timeout=timeout)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "t@example.com")
    git(path, "config", "user.name", "t")
    (path / "app.txt").write_text("broken\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "start")
    return path


def write_plugin(root: Path) -> Path:
    files = {
        ".claude-plugin/plugin.json": json.dumps({"name": "notes", "version": "1.0.0"}),
        "skills/release/SKILL.md": (
            f"---\nname: release\ndescription: Write {SKILL_MARK} release notes\n---\n\n"
            "Write NOTES.md with one line per change.\n"
        ),
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def install(env: dict[str, str], repo: Path, plugin: Path, *, enabled: bool) -> None:
    """`agent plugin install FOLDER` (user scope), then disabled unless `enabled`."""
    done = run_agent(env, repo, "plugin", "install", str(plugin), "--yes")
    assert done.returncode == 0, done.stderr
    if not enabled:
        done = run_agent(env, repo, "plugin", "disable", "notes@local")
        assert done.returncode == 0, done.stderr


CASES: list[dict[str, Any]] = [
    {
        "id": "notes",
        "prompt": "[notes] write the release notes",
        "checks": [{"file_exists": "NOTES.md"}, {"tool_used": "notes:*"}],
    },
    {
        "id": "codename",
        "prompt": "[codename] what is the release's codename?",
        "checks": [{"answer_matches": "codename is [A-Z]{4,}"}],
    },
    {
        "id": "fix",
        "prompt": "[fix] make app.txt say fixed",
        "checks": [{"command": "grep -qx fixed app.txt"}, {"tool_used": "write_file"}],
    },
]


def write_cases(path: Path, cases: list[dict[str, Any]] = CASES) -> Path:
    path.write_text(json.dumps(cases, indent=1))
    return path


def with_plugin(body: dict[str, Any]) -> bool:
    return SKILL_MARK in json.dumps(body.get("system", ""))


def _turn(body: dict[str, Any]) -> int:
    return sum(m.get("role") == "assistant" for m in body.get("messages", []))


class Model:
    """Replies by what each request holds: the case's marker, whether the plugin's skill is
    listed, and how far the run is. Without the plugin `fix` writes the fix in every other
    run only (which runs, the test does not know: they run two at a time)."""

    def __init__(self, fake: FakeAnthropic) -> None:
        self._fixes = itertools.count()
        self._lock = threading.Lock()
        for marker, reply in (("notes", self.notes), ("codename", self.codename),
                              ("fix", self.fix)):  # fmt: skip
            fake.route(first_user_contains(f"[{marker}]")).respond(reply, times=100)

    def notes(self, body: dict[str, Any]) -> Script | str:
        if not with_plugin(body):
            return "I do not know the house style."
        steps: list[Script | str] = [
            Script().tool_use("skill", name="notes:release"),
            Script().tool_use("write_file", path="NOTES.md", content="- fixed app.txt\n"),
            "Wrote NOTES.md.",
        ]
        return steps[min(_turn(body), 2)]

    def codename(self, body: dict[str, Any]) -> Script | str:
        return "The codename is FALCON." if with_plugin(body) else "I cannot tell."

    def fix(self, body: dict[str, Any]) -> Script | str:
        if _turn(body) > 0:
            return "Done."
        with self._lock:
            good = with_plugin(body) or next(self._fixes) % 2 == 0
        return Script().tool_use(
            "write_file", path="app.txt", content="fixed\n" if good else "fixd\n"
        )


def results(out: Path) -> dict[str, dict[str, Any]]:
    latest: dict[str, dict[str, Any]] = {}
    for line in (out / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        latest[record["id"]] = record
    return latest


def transcript(result: dict[str, Any]) -> tuple[str, set[str]]:
    """The run's final answer and the tools (and skills) it called, read from its transcript."""
    answer, used = "", set()
    for line in Path(result["transcript"]).read_text().splitlines():
        record = json.loads(line)
        message = record.get("message") or {}
        if record.get("type") != "message" or message.get("role") != "assistant":
            continue
        content = message["content"]
        blocks: list[dict[str, Any]] = (
            [{"type": "text", "text": content}] if isinstance(content, str) else content
        )
        texts = [b["text"] for b in blocks if b["type"] == "text"]
        answer = "".join(texts) if texts else answer
        for b in blocks:
            if b["type"] == "tool_use":
                used |= {b["name"], *([b["input"]["name"]] if b["name"] == "skill" else [])}
    return answer, used
