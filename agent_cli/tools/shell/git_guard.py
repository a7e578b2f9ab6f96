"""Unasked git runs without the programs a repository's config names.

`git status` runs `core.fsmonitor`, `git diff` runs `diff.external` and the textconv and
external-diff drivers `.gitattributes` picks, `git status` may run a `filter.*.clean`, `git log`
runs `gpg.program` (through `log.showSignature`); a folder shaped like a bare repository is
enough to be taken for one. A command that runs unasked as read-only gets environment overrides
(git's `GIT_CONFIG_COUNT`, which beat every config file) that make each of those harmless: git's
own diff instead of an external one, `cat` as textconv and clean/smudge filter, no fsmonitor,
no signature checks, implicit bare repositories refused. Commands the user approved run as the
repository configures them.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

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
}
# per-driver keys found in the repository's config -> their harmless value
DRIVER_KEYS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^diff\..+\.command$"), INTERNAL_DIFF),
    (re.compile(r"^diff\..+\.textconv$"), "cat"),
    (re.compile(r"^filter\..+\.(clean|smudge)$"), "cat"),
    (re.compile(r"^filter\..+\.process$"), ""),
    (re.compile(r"^filter\..+\.required$"), "false"),
)


def config_env(settings: dict[str, str]) -> dict[str, str]:
    env = {"GIT_CONFIG_COUNT": str(len(settings))}
    for i, (key, value) in enumerate(settings.items()):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


async def _config_keys(workspace: Path, env: dict[str, str]) -> list[str]:
    """Every config key git sees in the workspace (names only; reading runs nothing)."""
    try:
        proc = await asyncio.create_subprocess_exec(
            "git", "config", "--list", "--name-only", "-z",
            cwd=workspace,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        out, _ = await asyncio.wait_for(proc.communicate(), 10)
    except (OSError, TimeoutError):
        return []
    return [k for k in out.decode("utf-8", "replace").split("\0") if k]


async def neutral_env(workspace: Path, base: dict[str, str]) -> dict[str, str]:
    """`base` plus the overrides that keep git from running the repository's programs."""
    settings = dict(ALWAYS)
    env = {**base, **config_env(settings)}
    for key in await _config_keys(workspace, env):
        for pattern, value in DRIVER_KEYS:
            if pattern.match(key):
                settings[key] = value
    return {**base, **config_env(settings)}
