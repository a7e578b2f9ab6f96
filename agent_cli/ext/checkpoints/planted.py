"""The checkpoint store is never reached through a symbolic link.

The store lives under the state directory, by default the workspace: `.agent/checkpoints/<key>/`.
A confined command cannot write there (the sandbox binds `.agent` read-only), but a cloned
repository can ship `.agent` or anything under it as a link, and so can any program run outside
the sandbox. Followed, the store's git and its own files would be written wherever the link
points (an append to `logs/HEAD` lands in the file it names). So before the store is written,
no part of its path below the state directory and nothing in its git directory may be a link;
loose objects and packs, which git only ever creates beside or reads, are not looked into."""

from __future__ import annotations

import os
from pathlib import Path

from agent_cli.core.outside.paths import PlantedLink, no_links
from agent_cli.ext.checkpoints.git import GitError

OWN_FILES = ("git", "index.jsonl", "lock")


class LinkedStore(GitError):
    """The checkpoint store's path, or something in it, is a symbolic link."""

    exit_code = 2


def check_store(state_dir: Path, store: Path) -> None:
    """LinkedStore, saying what to do, when the store runs through a link; else nothing."""
    try:
        for name in OWN_FILES:
            no_links(store / name, state_dir)
        _no_links_under(store / "git", store / "git" / "objects")
    except PlantedLink as e:
        raise LinkedStore(
            f"{e}: no checkpoint is taken or restored through it. Remove the link (a "
            "repository may have shipped it), or keep the agent's state elsewhere with "
            "--state-dir DIR"
        ) from e


def _no_links_under(folder: Path, objects: Path) -> None:
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return
    for entry in entries:
        if entry.is_symlink():
            raise PlantedLink(f"{entry.path} is a symbolic link; the agent does not follow it")
        if folder != objects and entry.is_dir(follow_symlinks=False):
            _no_links_under(Path(entry.path), objects)
