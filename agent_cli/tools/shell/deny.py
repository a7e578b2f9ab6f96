"""The shell deny list: commands refused in every mode, wherever in a command they appear.

A command is split into the simple commands it runs: chained ones, the ones wrappers run (`env
-u HOME sudo`, `timeout -s KILL 5 sudo`, `stdbuf -o L sudo`, `xargs -I{} sudo`), the ones a
shell's `-c`, `eval`, `env -S` or `find -exec` runs. Nesting deeper than `MAX_NESTING` is refused
as unreadable rather than followed (each level re-reads what is left, so following it costs
time that grows with the square of its length).
"""

from __future__ import annotations

import re
import shlex
from functools import lru_cache
from pathlib import PurePosixPath

PRIVILEGED = frozenset({"sudo", "su", "doas", "pkexec", "shutdown", "reboot", "halt", "poweroff"})
DISK_TOOLS = frozenset({"mke2fs", "fdisk", "sfdisk", "parted", "wipefs", "mkswap"})
# wrapper -> its options that take a value as the next word (the value is no command)
WRAPPERS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "stdbuf": frozenset({"-i", "--input", "-o", "--output", "-e", "--error"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "--class", "-n", "--classdata", "-p", "-P", "-u"}),
    "xargs": frozenset({"-I", "-n", "-P", "-d", "-a", "-E", "-L", "-s", "--max-args",
                        "--max-procs", "--delimiter", "--arg-file", "--max-lines", "-e"}),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "exec": frozenset({"-a"}),
    "nohup": frozenset(), "command": frozenset(), "builtin": frozenset(),
    "setsid": frozenset(), "chrt": frozenset(), "taskset": frozenset(),
}  # fmt: skip
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
SEPARATORS = re.compile(r"\|\||&&|[;|&\n()`{}]|\$\(")
BRACED_VARIABLE = re.compile(r"\$\{(\w+)\}")
FORK_BOMB = re.compile(r":\s*\(\s*\)\s*\{")
RAW_DEVICE = re.compile(r">\s*/dev/(sd|nvme|hd|vd|xvd|disk|mmcblk)")
TOP_LEVEL = re.compile(r"^(/|~|\$HOME)/?[^/]*/?\*?$")
MAX_NESTING = 8
TOO_DEEP = f"a command nested more than {MAX_NESTING} levels deep (shells, eval, wrappers)"
# longer commands are not split word by word (that costs seconds at 100 KB): a coarse scan
# refuses any that names a denied program anywhere, quoted or not
DETAILED_CHARS = 16_384
_COARSE = re.compile(
    r"(?<![\w.-])(sudo|su|doas|pkexec|shutdown|reboot|halt|poweroff|mkfs[\w.]*|mke2fs|fdisk|"
    r"sfdisk|parted|wipefs|mkswap)(?![\w.-])|(?<![\w.-])dd\s[^\n;|&]*\bif=|--no-preserve-root|"
    r"(?<![\w.-])rm\s+(-\S+\s+)*-\S*[rR]\S*\s+(\S+\s+)*[\"']?(/|~|\$\{?HOME\}?)/?\*?[\"']?(\s|$)"
)


class TooDeep(Exception):
    """The command nests shells or eval deeper than anyone writes by hand."""


def words(segment: str) -> list[str]:
    try:
        return shlex.split(segment)
    except ValueError:
        return segment.split()


def denied(command: str) -> str | None:
    """Why the command is on the deny list, or None."""
    if FORK_BOMB.search(command):
        return "a fork bomb"
    if RAW_DEVICE.search(command):
        return "writing to a raw disk device"
    if len(command) > DETAILED_CHARS:
        found = _COARSE.search(command)
        return (
            f"`{found.group(0).strip()}` in a command too long to check word by word"
            if found
            else None
        )
    try:
        argvs = commands(command)
    except TooDeep:
        return TOO_DEEP
    for argv in argvs:
        reason = _denied_argv(list(argv))
        if reason:
            return reason
    return None


def normalised(command: str) -> list[str]:
    """Every simple command in `command` as `program args...`: what deny patterns match."""
    if len(command) > DETAILED_CHARS:
        return [command]
    try:
        return [" ".join(argv) for argv in commands(command)]
    except TooDeep:
        return []


@lru_cache(maxsize=64)
def commands(command: str, level: int = 0) -> tuple[tuple[str, ...], ...]:
    """Each simple command, without variable assignments and wrappers, its program named by
    its base name (`/bin/rm`, `\\rm` -> `rm`), plus the commands it runs in turn."""
    if level > MAX_NESTING:
        raise TooDeep
    found: list[tuple[str, ...]] = []
    for segment in SEPARATORS.split(BRACED_VARIABLE.sub(r"$\1", command)):
        for argv in _unwrap(words(segment), level):
            found.append(argv)
            for inner in _inner_commands(argv):
                found.extend(commands(inner, level + 1))
    return tuple(found)


def _inner_commands(argv: tuple[str, ...]) -> list[str]:
    name, rest = argv[0], argv[1:]
    if name == "eval":
        return [" ".join(rest)]
    if name in SHELLS and any(re.fullmatch(r"-[A-Za-z]*c[A-Za-z]*", w) for w in rest):
        # which operand is the script depends on the other options: check them all
        return [w for w in rest if not w.startswith("-")]
    if name == "find":
        starts = [i for i, w in enumerate(rest) if w in FIND_EXEC]
        return [" ".join(shlex.quote(w) for w in rest[i + 1 :]) for i in starts]
    return []


def _unwrap(argv: list[str], level: int) -> list[tuple[str, ...]]:
    """The command a run of assignments and wrappers ends in (`env -u HOME sudo ls` -> `sudo
    ls`), plus any command a wrapper takes as one string (`env -S 'sudo ls'`)."""
    found: list[tuple[str, ...]] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
            i += 1
            continue
        name = PurePosixPath(word.replace("\\", "")).name or word
        if name not in WRAPPERS:
            found.append((name, *argv[i + 1 :]))
            break
        split = _split_string(argv, i + 1) if name == "env" else None
        if split is not None:  # env -S 'sudo ls' runs its value as a command line
            found.extend(commands(split, level + 1))
        i = _skip_options(argv, i + 1, WRAPPERS[name])
    return found


def _split_string(argv: list[str], i: int) -> str | None:
    for j in range(i, len(argv)):
        word = argv[j]
        if word in ("-S", "--split-string"):
            return " ".join(argv[j + 1 :])
        if word.startswith("--split-string="):
            return " ".join([word.split("=", 1)[1], *argv[j + 1 :]])
        if word.startswith("-S"):
            return " ".join([word[2:], *argv[j + 1 :]])
        if not word.startswith("-"):
            return None
    return None


def _skip_options(argv: list[str], i: int, takes_value: frozenset[str]) -> int:
    """Index of the first word after a wrapper's options (and a timeout's duration)."""
    while i < len(argv):
        word = argv[i]
        if word in takes_value:
            i += 2
        elif word.startswith("-") or re.fullmatch(r"[\d.]+[smhd]?", word):
            i += 1
        else:
            break
    return i


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
    return None


def _rm_everything(args: list[str]) -> bool:
    if "--no-preserve-root" in args:
        return True
    recursive = any(a == "--recursive" or re.fullmatch(r"-[a-zA-Z]*[rR][a-zA-Z]*", a) for a in args)
    targets = [a for a in args if not a.startswith("-")]
    return recursive and any(TOP_LEVEL.match(t) for t in targets)
