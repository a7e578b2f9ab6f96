"""Print README's `agent ps` screenshot: three background sessions started with `agent run --bg
--worktree` in a repository, against the fake model server (one finishes, one waits on an
approval, one on a question), then `agent ps` as the user runs it; the sessions are stopped
and the scratch HOME removed after.

    python docs/make_ps_screenshot.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))

from tests.e2e.test_background import first_user  # noqa: E402
from tests.e2e.worktree_support import make_repo  # noqa: E402
from tests.fake_model import FakeAnthropic  # noqa: E402
from tests.waiting import wait_until  # noqa: E402

SESSIONS = [  # (prompt, extra flags, the state it reaches)
    ("fix the login bug in auth.py", ["--permission-mode", "accept-edits"], "done"),
    ("add a --json flag to the export command", [], "waiting: approval"),
    ("document the new flag in the README", [], "waiting: question"),
]
QUESTION = {
    "question": "Under Usage or Examples?",
    "header": "Where",
    "options": [{"label": "Usage"}, {"label": "Examples"}],
}


def script(server: FakeAnthropic) -> None:
    def about(words: str) -> object:
        return server.route(lambda body: words in first_user(body))

    login = about("login bug")
    login.tool_use("write_file", path="auth.py", content="def login(user):\n    ...\n")
    login.text("Fixed: the token is checked before the redirect.")
    about("--json flag").tool_use("write_file", path="export.py", content="JSON = True\n")
    about("README").tool_use("ask_user", questions=[QUESTION])


def agent(env: dict[str, str], where: Path, *args: str) -> str:
    command = [sys.executable, "-m", "agent_cli", *args]
    done = subprocess.run(command, cwd=where, env=env, capture_output=True, text=True, check=True)
    return done.stdout


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch, FakeAnthropic() as server:
        script(server)
        home = Path(scratch)
        repo = make_repo(home / "shop")
        env = {k: v for k, v in os.environ.items() if k not in ("XDG_STATE_HOME", "NO_COLOR")}
        env.update(
            HOME=str(home),
            ANTHROPIC_BASE_URL=server.base_url,
            ANTHROPIC_API_KEY="sk-test-" + "k" * 32,
            PYTHONPATH=str(DOCS.parent),
            AGENT_SANDBOX="off",
        )
        settings = home / ".config" / "agent" / "settings.json"
        settings.parent.mkdir(parents=True)
        settings.write_text(json.dumps({"background": {"idle_minutes": 0}}))
        for prompt, flags, _ in SESSIONS:
            agent(env, repo, "run", "--bg", "--worktree", *flags, "-p", prompt)
        for state in (state for _, _, state in SESSIONS):
            wait_until(lambda s=state: f'"{s}"' in agent(env, home, "ps", "--json"), 60, state)
        try:
            print("$ agent ps")
            print(agent(env, home, "ps"), end="")
        finally:
            for row in json.loads(agent(env, home, "ps", "--json")):
                if row["state"] not in ("done", "stopped", "failed"):
                    agent(env, repo, "stop", row["name"])


if __name__ == "__main__":
    main()
