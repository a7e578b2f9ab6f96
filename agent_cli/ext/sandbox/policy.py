"""What a sandboxed command may write and may not read, resolved to absolute paths."""

# ruff: noqa: PTH111, PTH118 - plain strings: this runs before every confined command

from __future__ import annotations

import functools
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from agent_cli.core.files.paths import STATE_FOLDERS, make_dirs
from agent_cli.ext.sandbox.lstat import kind, link_free, private_tmp
from agent_cli.ext.sandbox.submodules import protected_in, repositories

# inside the workspace these stay read-only: the agent's state and settings; in each `.git`
# (the workspace's, its submodules') what git runs a program or reads another config from
PROTECTED_IN_WORKSPACE = (*STATE_FOLDERS, ".claude/settings.json", ".claude/settings.local.json")
# credentials, hidden behind empty mounts
DENY_READ_IN_HOME = (
    ".ssh",
    ".aws",
    ".gnupg",
    ".netrc",
    ".docker/config.json",
    ".kube",
    ".config/agent",
    ".config/gh/hosts.yml",
    ".config/hub",
    ".git-credentials",
    ".config/git/credentials",
    ".npmrc",
    ".yarnrc.yml",
    ".pypirc",
    ".config/gcloud",
    ".azure",
    ".oci",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".vault-token",
    ".pgpass",
    ".my.cnf",
    ".terraform.d/credentials.tfrc.json",
    ".config/op",
    ".config/containers/auth.json",
    ".config/rclone",
    ".s3cfg",
    ".boto",
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".local/share/keyrings",
    ".password-store",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
)
# readable by root only, and root inside is the owner: hashes and host keys
DENY_READ_SYSTEM = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-")
HOST_KEYS = "*_key"  # in /etc/ssh


@functools.cache
def _hidden_in(home: str, runtime: str) -> tuple[str, ...]:
    """The user's credentials, the system's hashes and host keys, and the runtime directory
    (the user's sessions: sockets, and such as podman's auth.json)."""
    keys = sorted(str(key) for key in Path("/etc/ssh").glob(HOST_KEYS))
    own = (os.path.join(home, name) for name in DENY_READ_IN_HOME)
    return (*own, *DENY_READ_SYSTEM, *keys, runtime)


@functools.cache
def _hidden_by(deny_read: tuple[str, ...], workspace: str) -> tuple[str, ...]:
    """sandbox.deny_read; a relative entry is the workspace's."""
    return tuple(os.path.join(workspace, os.path.expanduser(path)) for path in deny_read)


@dataclass(frozen=True)
class SandboxPolicy:
    """The rules for one workspace; paths are resolved when the command is wrapped."""

    workspace: Path
    home: Path = field(default_factory=Path.home)
    write_paths: tuple[str, ...] = ()
    deny_read: tuple[str, ...] = ()
    state_dir: Path | None = None  # the agent's state when it is not the workspace
    # directories added with /add-dir: writable, with the workspace's protected files read-only
    added: tuple[Path, ...] = ()
    # workspace files the agent itself runs later, outside: read-only inside
    run_later: tuple[Path, ...] = ()
    unix_sockets: bool = False  # sandbox.allow_unix_sockets: no socket filter

    def roots(self) -> list[str]:
        """The folders the protected names apply in."""
        return [os.fspath(self.workspace), *map(os.fspath, self.added)]

    def writable(self) -> list[str]:
        """The workspace, /add-dir's folders and write_paths (a relative one is the workspace's).
        One inside the workspace is writable already and left out: bound again by path, a link
        the workspace (or a command beside) put on its way would be followed."""
        roots = self.roots()
        out = list(roots)
        for raw in self.write_paths:
            path = self.workspace / Path(raw).expanduser()
            if not any(path.is_relative_to(root) for root in roots):
                out.append(str(path))
        return out

    def protected(self) -> list[str]:
        """What stays read-only: the agent's state, what git and the agent read or run later.
        A `.git` that is a file (a linked worktree's) names where the repository is."""
        join = os.path.join
        own = [join(root, name) for root in self.roots() for name in PROTECTED_IN_WORKSPACE]
        for root in self.roots():
            own += [p for repo in repositories(root) or [root] for p in protected_in(repo)]
        if self.state_dir is not None:
            own += [join(self.state_dir, name) for name in STATE_FOLDERS]
        return own + [os.fspath(path) for path in self.run_later]

    def hidden(self) -> list[str]:
        runtime = os.environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
        deny = _hidden_by(self.deny_read, os.fspath(self.workspace))
        return [*_hidden_in(os.fspath(self.home), runtime), *deny]

    def tmpdir(self) -> Path:
        """`.agent/tmp`, or a private folder outside when a link stands on the way (bwrap would
        follow it and bind its target writable)."""
        inside = self.workspace / ".agent" / "tmp"
        if link_free(self.workspace, inside) and kind(inside) == stat.S_IFDIR:
            return inside
        return private_tmp(self.workspace)

    def prepare(self) -> None:
        """A protected folder that is missing could be created and filled by the command, so
        the agent's own (each with its .gitignore) and `.git/hooks` are made first; never
        through a link."""
        for name in STATE_FOLDERS:
            if kind(self.workspace / name) is None:
                make_dirs(self.workspace / name)
        if kind(self.workspace / ".agent") == stat.S_IFDIR:
            tmp = self.workspace / ".agent" / "tmp"
            if kind(tmp) is None:
                tmp.mkdir(exist_ok=True)
        for root in map(Path, self.roots()):
            if kind(root / ".git") == stat.S_IFDIR and kind(root / ".git" / "hooks") is None:
                (root / ".git" / "hooks").mkdir(exist_ok=True)
