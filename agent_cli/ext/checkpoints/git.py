"""The shadow git: a git directory of the agent's own whose work tree is the workspace.

Every call runs with an environment and `-c` options of ours: no system or global config, no
hooks, no fsmonitor, no filters or line-ending conversion, so a hostile repository (its config,
attributes, hooks) cannot run programs or change bytes through these calls. The user's `.git` is
never opened: GIT_DIR points at our own directory, and git itself never adds a `.git` folder.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agent_cli.core.errors import AgentError
from agent_cli.core.outside import spawn
from agent_cli.core.outside.env import default_env

# -c options on every call, so even a tampered config of ours cannot turn them back on
SAFE_CONFIG = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.symlinks=true",
    "core.filemode=true",
    "core.quotePath=false",
    "core.excludesFile=/dev/null",
    "core.untrackedCache=true",
    "core.splitIndex=false",
    "gc.auto=0",
    "core.compression=1",  # snapshots are written often and read rarely: fast zlib
    "core.looseCompression=1",
    "commit.gpgSign=false",
    "user.name=agent",
    "user.email=agent@localhost",
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "color.ui=never",
)
GIT_PREFIX = ("git", *(part for option in SAFE_CONFIG for part in ("-c", option)))
# info/attributes outranks the workspace's .gitattributes: bytes are stored as they are
ATTRIBUTES = "* -text !eol -filter -ident -working-tree-encoding\n"


class GitError(AgentError):
    """A git call of the checkpoint store failed."""


def git_env(git_dir: Path, work_tree: Path) -> dict[str, str]:
    """The gate's environment (no credentials: this git never talks to a server) without
    git's own variables, then ours."""
    env = {k: v for k, v in default_env().items() if not k.startswith("GIT_")}
    env.update(
        GIT_DIR=str(git_dir),
        GIT_WORK_TREE=str(work_tree),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL="/dev/null",
        GIT_ATTR_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="1",
        LC_ALL="C",
    )
    return env


class ShadowGit:
    def __init__(self, git_dir: Path, work_tree: Path, timeout_s: float = 300) -> None:
        self.git_dir, self.work_tree, self.timeout_s = git_dir, work_tree, timeout_s
        self._env = git_env(git_dir, work_tree)

    def run(self, *args: str, stdin: bytes | None = None, check: bool = True) -> bytes:
        command = [*GIT_PREFIX, *args]
        try:
            proc = spawn.run(
                command,
                cwd=self.work_tree,
                env=self._env,
                input=stdin,
                capture_output=True,
                timeout=self.timeout_s,
                check=False,
            )
        except (OSError, spawn.TimeoutExpired) as e:
            raise GitError(f"git {_command(args)} failed: {e}") from e
        if check and proc.returncode != 0:
            detail = proc.stderr.decode(errors="replace").strip().splitlines()
            last = detail[-1] if detail else proc.returncode
            raise GitError(f"git {_command(args)} failed: {last}")
        out: bytes = proc.stdout
        return out

    def init(self, excludes: Sequence[str]) -> None:
        """Create the git directory once; (re)write its exclude list and attributes each time."""
        if not (self.git_dir / "HEAD").is_file():
            self.git_dir.mkdir(parents=True, exist_ok=True)
            self.run("init", "--quiet", "--template=")  # no sample hooks copied in
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        _write_if_changed(info / "exclude", "".join(f"{line}\n" for line in excludes))
        _write_if_changed(info / "attributes", ATTRIBUTES)

    def rev(self, name: str) -> str | None:
        out = self.run("rev-parse", "--verify", "--quiet", name, check=False)
        return out.decode().strip() or None


def _command(args: Sequence[str]) -> str:
    """git's command among `args` (after any `-c key=value`), for an error message."""
    rest = list(args)
    while rest and rest[0] == "-c":
        rest = rest[2:]
    return rest[0] if rest else "?"


def _write_if_changed(path: Path, text: str) -> None:
    try:
        if path.read_text() == text:
            return
    except OSError:
        pass
    path.write_text(text)
