"""git run by the agent outside the sandbox, with the programs a repository names made harmless.

`git status` runs `core.fsmonitor`, `git diff` runs `diff.external` and the textconv and diff
drivers `.gitattributes` picks, `git add`/`checkout`/`worktree add` run `filter.*` clean and
smudge, hooks run on checkout and commit, `git log` runs `gpg.program`. git's
`GIT_CONFIG_COUNT` overrides beat every config file (includes too), so each of those is set to
something harmless: git's own diff, `cat` as textconv and filter, no fsmonitor, no hooks, no
signatures, implicit bare repositories refused. A `.git` that is a link, or a main `.git` holding
a `commondir` (which would send git to a config somebody wrote), is refused before git runs;
a worktree the agent made is reached through the git directory it recorded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from agent_cli.core.outside import spawn
from agent_cli.core.outside.env import default_env
from agent_cli.core.outside.paths import PlantedLink

# git's internal diff of the two files an external diff driver is given ($2 old, $5 new)
INTERNAL_DIFF = (
    'f() { git diff --no-index --no-ext-diff --no-textconv -- "$2" "$5"; [ $? -le 1 ]; }; f'
)
ALWAYS: dict[str, str] = {
    "safe.bareRepository": "explicit",
    "core.fsmonitor": "false",
    "core.hooksPath": "/dev/null",
    "log.showSignature": "false",
    "diff.external": INTERNAL_DIFF,
    "gpg.program": "false",
    "gpg.openpgp.program": "false",
    "gpg.x509.program": "false",
    "gpg.ssh.program": "false",
    "protocol.ext.allow": "never",
}
# program-naming keys found in the repository's own config (not the user's global one, whose
# programs are the user's: a git-lfs filter keeps working) -> their harmless value
DRIVER_KEYS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^diff\..+\.command$"), INTERNAL_DIFF),
    (re.compile(r"^diff\..+\.textconv$"), "cat"),
    (re.compile(r"^filter\..+\.(clean|smudge)$"), "cat"),
    (re.compile(r"^filter\..+\.process$"), ""),
    (re.compile(r"^filter\..+\.required$"), "false"),
    (re.compile(r"^merge\..+\.driver$"), "git merge-file --marker-size=%L %A %O %B"),
    (re.compile(r"^core\.(sshcommand|askpass|pager|editor|gitproxy)$"), "false"),
    (re.compile(r"^sequence\.editor$"), "false"),
    (re.compile(r"^credential\..*helper$"), ""),
    (re.compile(r"^remote\..+\.(uploadpack|receivepack)$"), "false"),
)
USER_SCOPES = ("system", "global")
# variables that would point git at another repository than the one it is run in
REDIRECTING = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CEILING_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_EXTERNAL_DIFF",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXEC_PATH",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_PAGER",
    "GIT_EDITOR",
)


class UnsafeRepository(PlantedLink):
    """The repository's `.git` has been shaped to send git somewhere else."""


def config_env(settings: Mapping[str, str]) -> dict[str, str]:
    env = {"GIT_CONFIG_COUNT": str(len(settings))}
    for i, (key, value) in enumerate(settings.items()):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


def overrides(keys: list[str]) -> dict[str, str]:
    """ALWAYS, plus the harmless value of every driver key among `keys` (a config's names)."""
    settings = dict(ALWAYS)
    for key in keys:
        for pattern, value in DRIVER_KEYS:
            if key and pattern.match(key.lower()):
                settings[key] = value
    return settings


def base_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The gate's environment less git's redirections, in the C locale, never prompting."""
    env = {k: v for k, v in (base or default_env()).items() if k not in REDIRECTING}
    env.update(LC_ALL="C", GIT_TERMINAL_PROMPT="0")
    return env


CONFIG_LIST = ("git", "config", "--list", "--show-scope", "--name-only", "-z")


def repository_keys(listing: bytes) -> list[str]:
    """The keys of `git config --list --show-scope --name-only -z` that the repository's own
    config files set (or files they include); a subsection keeps its case, as git's does."""
    parts = listing.decode("utf-8", "replace").split("\0")
    pairs = zip(parts[0::2], parts[1::2], strict=False)
    return [key for scope, key in pairs if key and scope not in USER_SCOPES]


def config_keys(repo: Path, env: Mapping[str, str]) -> list[str]:
    """The repository's own config keys in `repo` (names only: reading runs nothing)."""
    try:
        done = spawn.run(
            CONFIG_LIST, cwd=repo, env=env, capture_output=True, timeout=10, check=False
        )
    except (OSError, spawn.TimeoutExpired):
        return []
    return repository_keys(done.stdout)


def check_repo(worktree: Path) -> None:
    """UnsafeRepository when `worktree/.git` is a link or a main git directory holding a
    `commondir` (a main `.git` has none: it would send git to a config somebody wrote)."""
    dot_git = worktree / ".git"
    if dot_git.is_symlink():
        raise UnsafeRepository(f"{dot_git} is a symbolic link; the agent's git does not follow it")
    if dot_git.is_dir() and (dot_git / "commondir").exists():
        raise UnsafeRepository(
            f"{dot_git / 'commondir'} sends git to another repository's config; a main .git "
            "has none (remove it if you did not put it there)"
        )


def neutral_env(
    repo: Path, base: Mapping[str, str] | None = None, gitdir: Path | None = None
) -> dict[str, str]:
    """The environment for the agent's own git in `repo`: `base_env(base)` with every program
    the repository's config names made harmless. With `gitdir` (a git directory the agent
    made and recorded) git is sent there and `repo/.git`, whatever it now says, is not read;
    without, UnsafeRepository as `check_repo` says."""
    env = base_env(base)
    if gitdir is None:
        check_repo(repo)
    else:
        env.update(GIT_DIR=str(gitdir), GIT_WORK_TREE=str(repo))
    first = {**env, **config_env(ALWAYS)}
    return {**env, **config_env(overrides(config_keys(repo, first)))}
