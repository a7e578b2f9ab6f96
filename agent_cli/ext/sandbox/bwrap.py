"""The bubblewrap argv that confines one command to a policy."""

# ruff: noqa: PTH116 - plain strings: this runs before every confined command

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from agent_cli.ext.sandbox.environment import unset_args
from agent_cli.ext.sandbox.handoff import Handoff
from agent_cli.ext.sandbox.policy import SandboxPolicy
from agent_cli.ext.sandbox.probe import NAMESPACES
from agent_cli.ext.sandbox.protect import Spot, binds, spots, writable
from agent_cli.ext.sandbox.seccomp import filter_path, native_known

FORWARDER = Path(__file__).with_name("forwarder.py")


def _binds(option: str, paths: list[str]) -> list[str]:
    out: list[str] = []
    for path in paths:
        out += [option, path, path]
    return out


def _hidden(paths: list[str], kept: list[str]) -> list[str]:
    """Each of `paths` behind an empty mount, but one holding a folder of `kept` (the
    workspace under a hidden folder stays what the user works in), and one the user cannot
    read anyway (/etc/shadow but for root: each mount costs bwrap ~0.2 ms)."""
    out: list[str] = []
    for path in paths:
        if any(k == path or k.startswith(path.rstrip("/") + "/") for k in kept):
            continue
        if not os.access(path, os.R_OK):
            continue
        try:
            info = os.stat(path)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode):
            out += ["--tmpfs", path, "--remount-ro", path]
        else:
            out += ["--ro-bind", "/dev/null", path]
    return out


def through_proxy(argv: list[str], channel: int) -> list[str]:
    """`argv` run behind the in-sandbox forwarder, which hands the agent's proxy each
    connection over the inherited socket `channel`."""
    return [sys.executable, "-I", "-S", str(FORWARDER), str(channel), "--", *argv]


def _pins(pinned: list[Spot], handoff: Handoff | None) -> list[str]:
    """Each folder onto itself; by descriptor when bwrap can take one (the very folder
    checked), else by path. One that became a link meanwhile is left to settle."""
    out: list[str] = []
    for spot in pinned:
        if handoff is None:
            out += ["--bind", spot.path, spot.path]
        elif (fd := handoff.folder(spot.root, spot.parts)) is not None:
            out += ["--bind-fd", str(fd), spot.path]
    return out


def mounts(policy: SandboxPolicy, handoff: Handoff | None = None) -> list[str]:
    """Root read-only; the workspace and write_paths writable; the folders holding protected
    paths held in place and those paths read-only; $TMPDIR writable; secrets hidden."""
    roots = writable(policy)
    known = handoff.spots if handoff is not None else None
    pinned, read_only = binds(spots(policy.protected(), roots) if known is None else known)
    tmp = policy.tmpdir()
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    args += _binds("--bind", roots) + _pins(pinned, handoff)
    args += _binds("--ro-bind", read_only)
    args += ["--bind", str(tmp), str(tmp)]  # may lie inside the read-only .agent
    kept = [*roots, *map(os.path.realpath, roots), str(tmp)]
    args += _hidden(policy.hidden(), kept)
    return [*args, "--setenv", "TMPDIR", str(tmp), "--chdir", str(policy.workspace)]


def bwrap_argv(
    bwrap: str,
    argv: list[str],
    policy: SandboxPolicy,
    channel: int | None = None,
    handoff: Handoff | None = None,
) -> list[str]:
    """The command confined. bwrap reads the seccomp filter from a descriptor: with `handoff`
    (the caller passes its descriptors to the command) the agent opens it, and the folders
    bound onto themselves too; without, a shell opens it (`exec bwrap ... 9<FILTER`), at the
    cost of a shell's exec (not a Python start), and folders are bound by path.
    `channel`: the proxy's socket, inherited."""
    command = through_proxy(argv, channel) if channel is not None else argv
    tail = [*NAMESPACES, *unset_args(os.environ)]
    if not native_known():  # a filter for an ABI it does not know would kill every exec
        return [bwrap, *mounts(policy, handoff), *tail, "--", *command]
    if handoff is not None:
        seccomp = handoff.file(filter_path(policy.unix_sockets))
        args = [bwrap, *mounts(policy, handoff), *tail, "--seccomp", str(seccomp), "--"]
        return [*args, *command]
    fd = 8 if channel == 9 else 9
    args = [bwrap, *mounts(policy), *tail, "--seccomp", str(fd), "--"]
    opener = f'exec "$0" "$@" {fd}<{filter_path(policy.unix_sockets)}'
    return ["/bin/sh", "-c", opener, *args, *command]
