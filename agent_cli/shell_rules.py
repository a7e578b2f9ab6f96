"""What a shell command is, for permissions: plainly read-only, or on the deny list.

Read-only means a command that cannot write or run anything else: a known reader (`ls`, `cat`,
`grep`, `git status/log/diff/show`, `find` without actions, ...) with nothing that redirects,
chains (`;`, `&&`, `||`, `&`), substitutes (backticks, `$(`) or expands variables, and no path
argument leaving the workspace. Pipes are fine when every stage is read-only.
The deny list is refused in every mode, wherever in the command it appears.
"""

from __future__ import annotations

import re
import shlex
from pathlib import PurePosixPath

UNSAFE = ("`", "$", ">", "<", ";", "&", "\n", "\r", "||")
READERS = frozenset(
    {"ls", "cat", "head", "tail", "wc", "grep", "rg", "pwd", "stat", "du", "df", "which",
     "echo", "find", "git", "basename", "dirname", "realpath", "cut", "tr", "sort", "true"}
)  # fmt: skip
GIT_READS = frozenset({"status", "log", "diff", "show"})
# options that make a reader write a file or run a program
BAD_OPTIONS = {
    "find": ("-exec", "-execdir", "-delete", "-ok", "-okdir", "-fprint", "-fls"),
    "git": ("--output", "--ext-diff"),
    "rg": ("--pre",),
    "sort": ("-o", "--output"),
}
PRIVILEGED = frozenset({"sudo", "su", "doas", "pkexec", "shutdown", "reboot", "halt", "poweroff"})
DISK_TOOLS = frozenset({"mke2fs", "fdisk", "sfdisk", "parted", "wipefs", "mkswap"})
WRAPPERS = frozenset({"env", "nohup", "time", "nice", "command", "exec", "builtin", "xargs",
                      "timeout", "stdbuf", "ionice", "setsid"})  # fmt: skip
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
SEPARATORS = re.compile(r"\|\||&&|[;|&\n()`{}]|\$\(")
FORK_BOMB = re.compile(r":\s*\(\s*\)\s*\{")
RAW_DEVICE = re.compile(r">\s*/dev/(sd|nvme|hd|vd|xvd|disk|mmcblk)")
TOP_LEVEL = re.compile(r"^(/|~|\$HOME|\$\{HOME\})/?[^/]*/?\*?$")


def words(segment: str) -> list[str]:
    try:
        return shlex.split(segment)
    except ValueError:
        return segment.split()


def is_read_only(command: str) -> bool:
    if any(mark in command for mark in UNSAFE) or not command.strip():
        return False
    return all(_reader(words(stage)) for stage in command.split("|"))


def _reader(argv: list[str]) -> bool:
    if not argv or argv[0] not in READERS:
        return False
    name, rest = argv[0], argv[1:]
    if name == "git" and (not rest or rest[0] not in GIT_READS):
        return False
    bad = BAD_OPTIONS.get(name, ())
    if any(w == b or w.startswith(b + "=") for w in rest for b in bad):
        return False
    return not any(_leaves_workspace(w) for w in rest)


def _leaves_workspace(word: str) -> bool:
    value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
    return value.startswith(("/", "~")) or ".." in PurePosixPath(value).parts


def denied(command: str) -> str | None:
    """Why the command is on the deny list, or None."""
    if FORK_BOMB.search(command):
        return "a fork bomb"
    if RAW_DEVICE.search(command):
        return "writing to a raw disk device"
    for segment in SEPARATORS.split(command):
        reason = _denied_argv(_unwrap(words(segment)))
        if reason:
            return reason
    return None


def _unwrap(argv: list[str]) -> list[str]:
    """Skip variable assignments and wrappers such as `env`, `nohup`, `timeout 5`."""
    i = 0
    while i < len(argv) and _prefix_word(argv[i]):
        i += 1
    return argv[i:]


def _prefix_word(word: str) -> bool:
    return bool(
        re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word)
        or word.startswith("-")
        or PurePosixPath(word).name in WRAPPERS
        or re.fullmatch(r"[\d.]+[smhd]?", word)
    )


def _denied_argv(argv: list[str]) -> str | None:
    if not argv:
        return None
    name = PurePosixPath(argv[0]).name
    if name in PRIVILEGED:
        return f"`{name}`"
    if name.startswith("mkfs") or name in DISK_TOOLS:
        return f"`{name}` (formats disks)"
    if name == "dd" and any(w.startswith("if=") for w in argv):
        return "`dd if=`"
    if name == "rm" and _rm_everything(argv[1:]):
        return "recursive `rm` of / , ~ or a top-level folder"
    if name in SHELLS and "-c" in argv[1:-1]:
        return denied(argv[argv.index("-c", 1) + 1])
    return None


def _rm_everything(args: list[str]) -> bool:
    if "--no-preserve-root" in args:
        return True
    recursive = any(a == "--recursive" or re.fullmatch(r"-[a-zA-Z]*[rR][a-zA-Z]*", a) for a in args)
    targets = [a for a in args if not a.startswith("-")]
    return recursive and any(TOP_LEVEL.match(t) for t in targets)
