"""git's command line as the agent runs it outside the sandbox: in the gate's environment
(git.py: every program the repository's config names made harmless), with our own `-c`
options so its output is as we parse it: no colour, the usual a/ b/ prefixes (`git apply`
needs them), paths unquoted."""

from __future__ import annotations

from pathlib import Path

from agent_cli.core.outside import spawn

SAFE_CONFIG = (
    "core.quotePath=false",
    "color.ui=never",
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "advice.detachedHead=false",
)
GIT = ("git", *(part for option in SAFE_CONFIG for part in ("-c", option)))


def run_git(
    cwd: Path, *args: str, env: dict[str, str], stdin: bytes | None = None
) -> spawn.CompletedProcess[bytes]:
    """git `args` in `cwd` with `env` (the gate's: `git.neutral_env`); FileNotFoundError when
    git is not installed."""
    return spawn.run([*GIT, *args], cwd=cwd, input=stdin, capture_output=True, timeout=120, env=env)
