"""What a sandboxed command put where a protected path was missing, or a link stood, is moved
aside when it ends (never deleted: the user may have written it meanwhile), and the result says
so. A protected path that existed is bound read-only and the folders holding it cannot be moved
(protect.py), so only those could change: `.claude/settings.json` in a new `.claude`, a whole new
`.git`, a `.claude` the command turned into a link.

Nothing here acts through a link: each folder is opened below the last (O_NOFOLLOW) and a name
is renamed within its own folder, so a link put in the way is moved itself, never what it names.
The one exception to moving aside: what `git init` writes in a `.git` the command created (a
plain config, sample hooks) stays; anything that could run a program does not (gitconfig.py).
"""

# ruff: noqa: PTH118 - plain strings: this runs before every confined command

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass

from agent_cli.ext.sandbox.gitconfig import harmless_config, harmless_hooks
from agent_cli.ext.sandbox.gitindex import gitlinks, identity
from agent_cli.ext.sandbox.lstat import chain
from agent_cli.ext.sandbox.policy import SandboxPolicy
from agent_cli.ext.sandbox.protect import Spot, guarded, spots, writable
from agent_cli.ext.sandbox.submodules import protected_in, repositories

SUFFIX = ".sandbox-rejected"
Identity = tuple[int, int, int] | None  # (device, inode, type), None: nothing there
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _identity(info: os.stat_result | None) -> Identity:
    return None if info is None else (info.st_dev, info.st_ino, stat.S_IFMT(info.st_mode))


def _at(fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=fd, follow_symlinks=False)
    except OSError:
        return None


@dataclass(frozen=True)
class Watch:
    """The protected paths as they stood before a command; `settle()` once it has ended."""

    workspace: str
    policy: SandboxPolicy
    seen: tuple[tuple[Spot, tuple[Identity, ...]], ...]
    indexes: dict[str, tuple[int, ...] | None]  # each repository's index, to see new submodules

    @classmethod
    def before(cls, policy: SandboxPolicy, found: list[Spot] | None = None) -> Watch:
        """`found`: the policy's spots when already looked up (protect.guarded)."""
        spots_ = guarded(policy) if found is None else found
        seen = [(s, tuple(_identity(i) for i in chain(s.root, s.parts))) for s in spots_]
        indexes = {repo: identity(_index(repo)) for repo in _repositories(policy)}
        return cls(os.path.realpath(policy.workspace), policy, tuple(seen), indexes)

    def settle(self) -> list[str]:
        """The notes for what the command created or replaced (each moved to
        `<name>.sandbox-rejected`)."""
        notes: list[str] = []
        for spot, before in (*self.seen, *self._submodules()):
            note = self._look(spot, before)
            if note and note not in notes:
                notes.append(note)
        return notes

    def _submodules(self) -> list[tuple[Spot, tuple[Identity, ...]]]:
        """Where an index changed: the git directories of submodules it records that were not
        there before, all new (what `git init` makes passes); an index too large to read, as a
        spot of its own, moved aside."""
        fresh: list[str] = []
        for repo in _repositories(self.policy):
            index = _index(repo)
            if repo in self.indexes and identity(index) == self.indexes[repo]:
                continue
            fresh += [index] if gitlinks(repo) is None else []
            fresh += [] if repo in self.indexes else protected_in(repo)
        return [(s, ()) for s in spots(fresh, writable(self.policy))]

    def _look(self, spot: Spot, before: tuple[Identity, ...]) -> str | None:
        try:
            fd = os.open(spot.root, _DIR_FLAGS)
        except OSError:
            return None
        try:
            for n, name in enumerate(spot.parts):
                info, was = _at(fd, name), before[n] if n < len(before) else None
                if info is None or (was is not None and _identity(info) == was):
                    if info is None or not stat.S_ISDIR(info.st_mode):
                        return None  # nothing there, or the same file or link as before
                elif not stat.S_ISDIR(info.st_mode) or n == len(spot.parts) - 1:
                    return self._judge(fd, spot, n, info, replaced=was is not None)
                fd = _descend(fd, name)  # a folder as before, or a new one: what is in it?
            return None
        except OSError:
            return None
        finally:
            with contextlib.suppress(OSError):
                os.close(fd)

    def _judge(
        self, fd: int, spot: Spot, n: int, info: os.stat_result, replaced: bool
    ) -> str | None:
        name, where = spot.parts[n], spot.parts[: n + 1]
        if not replaced and _harmless(fd, where, info):
            return None
        aside = _free(fd, name + SUFFIX)
        os.rename(name, aside, src_dir_fd=fd, dst_dir_fd=fd)
        rel = self._shown(os.path.join(spot.root, *where))
        moved = self._shown(os.path.join(spot.root, *spot.parts[:n], aside))
        how = "replaced" if replaced else "created"
        return (
            f"[sandbox: {rel} is protected; the command {how} it, so it was moved to "
            f"{moved}. Write it with write_file (asked) if it is wanted]"
        )

    def _shown(self, path: str) -> str:
        prefix = self.workspace.rstrip("/") + "/"
        return path[len(prefix) :] if path.startswith(prefix) else path


def _repositories(policy: SandboxPolicy) -> list[str]:
    return [repo for root in policy.roots() for repo in repositories(root) or [root]]


def _index(repo: str) -> str:
    return os.path.join(repo, ".git", "index")


def _descend(fd: int, name: str) -> int:
    child = os.open(name, _DIR_FLAGS, dir_fd=fd)
    os.close(fd)
    return child


def _harmless(fd: int, where: tuple[str, ...], info: os.stat_result) -> bool:
    """What `git init` makes in a new `.git`: a config with nothing that runs a program, and
    sample hooks only."""
    if where[-2:] == (".git", "config") and stat.S_ISREG(info.st_mode):
        return harmless_config(fd, "config")
    if where[-2:] == (".git", "hooks") and stat.S_ISDIR(info.st_mode):
        return harmless_hooks(fd, "hooks")
    return False


def _free(fd: int, name: str) -> str:
    n, candidate = 1, name
    while _at(fd, candidate) is not None:
        n += 1
        candidate = f"{name}.{n}"
    return candidate
