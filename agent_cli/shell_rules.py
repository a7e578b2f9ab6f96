"""What a shell command is, for permissions: plainly read-only, or on the deny list.

Read-only is an allow-list: a known reader (`ls`, `cat`, `grep`, `git status/log/diff/show`,
`find` without actions, ...) made of plain words only. Outside quotes a command may hold letters,
digits, blanks, `-_./=:,@%+^`, `~` inside a word (`HEAD~1`) and `|` between readers; anything
else (`$`, backticks, redirection, `;`, `&`, globs, braces, backslashes, `#`, `!`) makes it not
read-only, whatever it would do. Quoted text is literal, except `$`, backticks, `\\` and `!`
inside double quotes. No option may write a file or run a program (long options count by their
GNU/git abbreviations: `--out=x` is `--output=x`), and no path argument may leave the workspace.
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
PLAIN = frozenset("-_./=:,@%+^ \t")
# find's actions that write a file, delete or run a program (find takes no abbreviations)
FIND_ACTIONS = ("-exec", "-ok", "-delete", "-fprint", "-fls")
# long options that write a file, run a program or read a list of files; any abbreviation counts
BAD_LONG = {
    "git": ("output", "ext-diff", "textconv"),
    "rg": ("pre", "pre-glob", "hostname-bin"),
    "sort": ("output", "compress-program", "temporary-directory", "files0-from"),
    "wc": ("files0-from",),
    "du": ("files0-from",),
}
# short options of the same kinds, also inside a bundle (`-rno x`) or with a glued value
BAD_SHORT = {"sort": "oT"}
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
    stages = plain_stages(command)
    return stages is not None and all(_reader(words(stage)) for stage in stages)


def plain_stages(command: str) -> list[str] | None:
    """The pipeline's stages when the command is made of plain words only, else None."""
    stages: list[str] = []
    start, quote = 0, ""
    for i, ch in enumerate(command):
        if quote:
            if ch == quote:
                quote = ""
            elif ch in "\n\r" or (quote == '"' and ch in "$`\\!"):
                return None
        elif ch in "'\"":
            quote = ch
        elif ch == "|":
            stages.append(command[start:i])
            start = i + 1
        elif not (ch.isalnum() or ch in PLAIN or (ch == "~" and _inside_word(command, i))):
            return None
    stages.append(command[start:])
    return None if quote or not all(s.strip() for s in stages) else stages


def _inside_word(command: str, i: int) -> bool:
    # a tilde at the start of a word or after `=`/`:` expands to a home folder
    return i > 0 and (command[i - 1].isalnum() or command[i - 1] in "_~^")


def _reader(argv: list[str]) -> bool:
    if not argv or argv[0] not in READERS:
        return False
    name, rest = argv[0], argv[1:]
    if name == "git" and (not rest or rest[0] not in GIT_READS):
        return False
    if any(_bad_option(name, w) for w in rest):
        return False
    return not any(_leaves_workspace(w) for w in rest)


def _bad_option(name: str, word: str) -> bool:
    if name == "find":
        return word.startswith(FIND_ACTIONS)
    if word.startswith("--"):
        given = word[2:].split("=", 1)[0]
        return bool(given) and any(bad.startswith(given) for bad in BAD_LONG.get(name, ()))
    return word.startswith("-") and any(c in word[1:] for c in BAD_SHORT.get(name, ""))


def _leaves_workspace(word: str) -> bool:
    """Any part of the word that could be a path (after `=` or `:`, or glued to a short
    option like `-f/etc/x`) is absolute, in a home folder or climbs with `..`."""
    parts = re.split(r"[=:,]", word)
    if re.match(r"-[A-Za-z]", word):
        parts.append(word[2:])
    return any(p.startswith(("/", "~")) or ".." in PurePosixPath(p).parts for p in parts)


def denied(command: str) -> str | None:
    """Why the command is on the deny list, or None."""
    if FORK_BOMB.search(command):
        return "a fork bomb"
    if RAW_DEVICE.search(command):
        return "writing to a raw disk device"
    for argv in commands(command):
        reason = _denied_argv(argv)
        if reason:
            return reason
    return None


def normalised(command: str) -> list[str]:
    """Every simple command in `command` as `program args...`: what deny patterns match."""
    return [" ".join(argv) for argv in commands(command)]


def commands(command: str) -> list[list[str]]:
    """Each chained command without variable assignments and wrappers, its program named by
    its base name (`/bin/rm`, `\\rm` -> `rm`); also the commands a shell's `-c` (bundled too,
    `-lc`) or `eval` runs. The strings recursed into are shorter, so this ends."""
    found: list[list[str]] = []
    for segment in SEPARATORS.split(command):
        argv = _unwrap(words(segment))
        if not argv:
            continue
        argv = [PurePosixPath(argv[0].replace("\\", "")).name or argv[0], *argv[1:]]
        found.append(argv)
        for inner in _inner_commands(argv):
            found.extend(commands(inner))
    return found


def _inner_commands(argv: list[str]) -> list[str]:
    name, rest = argv[0], argv[1:]
    if name == "eval":
        return [" ".join(rest)]
    if name in SHELLS and any(re.fullmatch(r"-[A-Za-z]*c[A-Za-z]*", w) for w in rest):
        # which operand is the script depends on the other options: check them all
        return [w for w in rest if not w.startswith("-")]
    return []


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
    return None


def _rm_everything(args: list[str]) -> bool:
    if "--no-preserve-root" in args:
        return True
    recursive = any(a == "--recursive" or re.fullmatch(r"-[a-zA-Z]*[rR][a-zA-Z]*", a) for a in args)
    targets = [a for a in args if not a.startswith("-")]
    return recursive and any(TOP_LEVEL.match(t) for t in targets)
