"""Protected paths held fast: what bwrap binds so that a confined command can neither write a
protected file nor move aside the folders that hold it (`mv .git .git.old` and a new `.git`),
and the same paths for settle (created.py) to look at once the command has ended.

A protected path is located below the writable root it lies in, by real paths. Each folder on
its way (`.git`, `.claude`) is bound onto itself: a mount point cannot be renamed or removed
(EBUSY), and binding a writable folder writable widens nothing. The path itself is bound
read-only when it exists. A link on the way is never bound through; its target, when it lies in
a writable root, is protected in its own right, and settle sees whether the link was replaced.

Paths are plain strings here: this runs before every confined command.
"""

# ruff: noqa: PTH110, PTH118 - plain strings: this runs before every confined command

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from agent_cli.ext.sandbox.lstat import chain, inside
from agent_cli.ext.sandbox.policy import SandboxPolicy


@dataclass(frozen=True)
class Spot:
    """A protected path: its writable root (a real path) and its components below it."""

    root: str
    parts: tuple[str, ...]

    @property
    def path(self) -> str:
        return os.path.join(self.root, *self.parts)


def _locate(path: str, real_of: dict[str, str]) -> Spot | None:
    found = inside(path, list(real_of))
    return None if found is None else Spot(real_of[found[0]], found[1])


def spots(paths: list[str], writable: list[str]) -> list[Spot]:
    """The `paths` that lie in a writable root (any other is read-only already), each reached
    through a link followed by its target's own spot."""
    real_of = {path: os.path.realpath(path) for path in writable}
    real_of.update({real: real for real in list(real_of.values())})
    out: list[Spot] = []
    seen: set[Spot] = set()
    for path in paths:
        spot = _locate(path, real_of)
        if spot is None or not spot.parts or spot in seen:
            continue
        out.append(spot)
        seen.add(spot)
        found = chain(spot.root, spot.parts)
        last = found[-1] if found else None
        if last is not None and stat.S_ISLNK(last.st_mode):
            target = _locate(os.path.realpath(spot.path), real_of)
            if target is not None and target.parts and target not in seen:
                out.append(target)
                seen.add(target)
    return out


def binds(found: list[Spot]) -> tuple[list[Spot], list[str]]:
    """(folders bound onto themselves, shallowest first; paths bound read-only)."""
    pinned: set[Spot] = set()
    read_only: list[str] = []
    for spot in found:
        path = spot.root
        for n, info in enumerate(chain(spot.root, spot.parts)):
            path = os.path.join(path, spot.parts[n])
            if info is None or stat.S_ISLNK(info.st_mode):
                break
            if n == len(spot.parts) - 1:
                read_only.append(path)
            elif stat.S_ISDIR(info.st_mode):
                pinned.add(Spot(spot.root, spot.parts[: n + 1]))
    return sorted(pinned, key=lambda s: (len(s.parts), s.parts)), read_only


def writable(policy: SandboxPolicy) -> list[str]:
    """The writable roots bwrap binds (those that exist)."""
    return [path for path in policy.writable() if os.path.exists(path)]


def guarded(policy: SandboxPolicy) -> list[Spot]:
    """The spots of `policy` as bwrap_argv binds them."""
    return spots(policy.protected(), writable(policy))
