"""Descriptors a confined command inherits (`pass_fds`), opened by the agent as it builds the
command's bwrap argv: the seccomp filter (a fresh read of the sealed memfd), and each folder
bwrap binds onto itself, opened one component below the last without following a link. bwrap
then binds exactly the folder that was checked: a confined command running beside (a
background job) that swaps `.claude` for a link to the home folder between the check and the
mount gets that link's target bound nowhere. Closed here once the command has started."""

from __future__ import annotations

import contextlib
import os

from agent_cli.ext.sandbox.protect import Spot

_PATH_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Handoff:
    def __init__(self, spots: list[Spot] | None = None) -> None:
        self.fds: list[int] = []
        self.spots = spots  # the protected paths as looked up for this command, if they were

    def file(self, path: str) -> int:
        """`path` opened for reading (its own offset: bwrap reads it whole)."""
        self.fds.append(os.open(path, os.O_RDONLY | os.O_CLOEXEC))
        return self.fds[-1]

    def folder(self, root: str, parts: tuple[str, ...]) -> int | None:
        """`root/parts...` with no link on the way below `root`; None when one is there now."""
        try:
            fd = os.open(root, _PATH_FLAGS)
        except OSError:
            return None
        try:
            for part in parts:
                child = os.open(part, _PATH_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = child
        except OSError:
            os.close(fd)
            return None
        self.fds.append(fd)
        return fd

    def close(self) -> None:
        """Idempotent: the command has its own copies once it has started."""
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds.clear()
