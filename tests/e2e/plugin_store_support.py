"""What the plugin store's end-to-end tests share: the real `agent plugin ...` CLI in a
subprocess with its own HOME (so the store and the user's settings live under it), a git
marketplace built from tests/plugin_fixtures.py, and the port "plugin_bundles" asked as a run
asks it (the registry, the settings with their trust, the extension's port)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.e2e.helpers import REPO
from tests.plugin_fixtures import entry, full_plugin, git_commit, marketplace


def plugin_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_PLUGINS", "PIP_"))}
    for name in ("XDG_CONFIG_HOME", "AGENT_TRUST_WORKSPACE", "ANTHROPIC_AUTH_TOKEN"):
        env.pop(name, None)
    env.update(HOME=str(home), NO_COLOR="1", PYTHONPATH=str(REPO))
    return env


def config(env: dict[str, str]) -> Path:
    return Path(env["HOME"]) / ".config" / "agent"


def store_root(env: dict[str, str]) -> Path:
    return config(env) / "plugins"


def agent(
    env: dict[str, str], cwd: Path, *args: str, python: str = sys.executable
) -> subprocess.CompletedProcess[str]:
    """`agent ARGS` with stdin not a terminal (an empty pipe)."""
    return subprocess.run(
        [python, "-m", "agent_cli", *args],
        cwd=cwd, env=env, input="", capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def one_line_error(proc: subprocess.CompletedProcess[str], code: int) -> str:
    """The failure's one stderr line (and no traceback): what a bad input must give."""
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("agent: "), lines[0]
    return lines[0]


def team_market(root: Path, hook: str = 'sh "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh"') -> Path:
    """A git marketplace `team` listing `kit` (one of each component) at ./plugins/kit."""
    full_plugin(root / "plugins" / "kit", hook_command=hook)
    marketplace(root, "team", [entry("kit", "./plugins/kit")])
    git_commit(root, "kit 1.0.0")
    return root


def settings(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def index(env: dict[str, str]) -> dict[str, Any]:
    return settings(store_root(env) / "store.json")


PORT_SCRIPT = """
import json, sys
from pathlib import Path
from agent_cli.core.options import Options
from agent_cli.runtime.build import asking, installed, load
from agent_cli.runtime.extensions.contract import ExtensionContext

workspace = Path(sys.argv[1]).resolve()
options = Options(workspace=workspace, one_shot=True)
extensions = installed(asking(options))
settings, paths = load(options, extensions)
context = lambda name: ExtensionContext(name, workspace, paths, settings, "s-1")
source = extensions.port("plugin_bundles", context)
print(json.dumps({
    "bundles": [{"name": b.name, "source": b.source, "scope": b.scope, "root": str(b.root),
                 "hooks": sorted(b.hooks)} for b in source.bundles()],
    "warnings": list(source.warnings()),
}))
"""


def ask_port(env: dict[str, str], workspace: Path, **extra: str) -> dict[str, Any]:
    """The port's answer for `workspace` in a fresh process, as `agent run` there asks it."""
    done = subprocess.run(
        [sys.executable, "-c", PORT_SCRIPT, str(workspace)],
        cwd=workspace, env={**env, **extra}, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    answer["stderr"] = done.stderr
    return answer
