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
from pathlib import Path

from agent_cli.core.outside import spawn
from agent_cli.core.outside.git import ALWAYS, CONFIG_LIST, config_env, overrides, repository_keys


async def _config_keys(workspace: Path, env: dict[str, str]) -> list[str]:
    """The repository's own config keys (names only; reading runs nothing)."""
    try:
        proc = await spawn.start(
            CONFIG_LIST,
            cwd=workspace,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        out, _ = await asyncio.wait_for(proc.communicate(), 10)
    except (OSError, TimeoutError):
        return []
    return repository_keys(out)


async def neutral_env(workspace: Path, base: dict[str, str]) -> dict[str, str]:
    """`base` plus the overrides that keep git from running the repository's programs."""
    env = {**base, **config_env(ALWAYS)}
    return {**base, **config_env(overrides(await _config_keys(workspace, env)))}
