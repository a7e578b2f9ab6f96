"""What a shell command is, for permissions: plainly read-only, or on the deny list.

Read-only is an allow-list: a known reader (`ls`, `cat`, `grep`, `git status/log/diff/show`,
`find` without actions, ...) made of plain words only. Outside quotes a command may hold letters,
digits, blanks, `-_./=:,@%+^`, `~` inside a word (`HEAD~1`) and `|` between readers; anything
else (`$`, backticks, redirection, `;`, `&`, globs, braces, backslashes, `#`, `!`) makes it not
read-only, whatever it would do. Quoted text is literal, except `$`, backticks, `\\` and `!`
inside double quotes. No option may write a file or run a program (long options count by their
GNU/git abbreviations: `--out=x` is `--output=x`), and no path argument may leave the workspace.
Path arguments are resolved in the workspace (symlinks followed) before a command counts as
read-only: `cat creds` where `creds -> ~/.aws/credentials` reads outside and is asked, as
`read_file` would be; so are options that follow symlinks while recursing (`grep -R`, `rg -L`,
`find -L`). The deny list (`shell_deny`) is refused in every mode.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from agent_cli.tools.shell.deny import DETAILED_CHARS, SEPARATORS, denied, normalised, words

__all__ = ["SEPARATORS", "UNSAFE", "denied", "is_read_only", "normalised", "words"]

UNSAFE = ("`", "$", ">", "<", ";", "&", "\n", "\r", "||")
READERS = frozenset(
    {"ls", "cat", "head", "tail", "wc", "grep", "rg", "pwd", "stat", "du", "df", "which",
     "echo", "find", "git", "basename", "dirname", "realpath", "cut", "tr", "sort", "true",
     "seq"}
)  # fmt: skip
GIT_READS = frozenset({"status", "log", "diff", "show"})
PLAIN = frozenset("-_./=:,@%+^ \t")
# find's actions that write a file, delete or run a program, and its options that follow
# symlinks out of the tree (find takes no abbreviations)
FIND_ACTIONS = ("-exec", "-ok", "-delete", "-fprint", "-fls", "-L", "-H", "-follow")
# long options that write a file, run a program or read a list of files; any abbreviation counts
BAD_LONG = {
    "git": ("output", "ext-diff", "textconv"),
    "sort": ("output", "compress-program", "temporary-directory", "files0-from"),
    "wc": ("files0-from",),
    "du": ("files0-from", "dereference"),
    "grep": ("dereference-recursive",),
    "rg": ("pre", "pre-glob", "hostname-bin", "follow"),
    "ls": ("dereference",),
}
# short options of the same kinds (and that follow symlinks while recursing), also inside a
# bundle (`-rno x`) or with a glued value
BAD_SHORT = {"sort": "oT", "grep": "R", "rg": "L", "du": "L", "ls": "L"}


def is_read_only(command: str, workspace: Path | None = None) -> bool:
    """Plainly read-only; with `workspace`, also every path argument resolves inside it."""
    if len(command) > DETAILED_CHARS:  # too long to read word by word: it is asked
        return False
    stages = plain_stages(command)
    return stages is not None and all(_reader(words(stage), workspace) for stage in stages)


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


def _reader(argv: list[str], workspace: Path | None) -> bool:
    if not argv or argv[0] not in READERS:
        return False
    name, rest = argv[0], argv[1:]
    if name == "git" and (not rest or rest[0] not in GIT_READS):
        return False
    if any(_bad_option(name, w) for w in rest):
        return False
    if any(_leaves_workspace(w) for w in rest):
        return False
    return workspace is None or all(_resolves_inside(w, workspace) for w in rest)


def _bad_option(name: str, word: str) -> bool:
    if name == "find":
        return word.startswith(FIND_ACTIONS)
    if word.startswith("--"):
        given = word[2:].split("=", 1)[0]
        return bool(given) and any(bad.startswith(given) for bad in BAD_LONG.get(name, ()))
    return word.startswith("-") and any(c in word[1:] for c in BAD_SHORT.get(name, ""))


def _path_parts(word: str) -> list[str]:
    """The parts of a word that could be a path: after `=` or `:`, or glued to a short option
    like `-f/etc/x`."""
    parts = re.split(r"[=:,]", word)
    if re.match(r"-[A-Za-z]", word):
        parts.append(word[2:])
    return [p for p in parts if p]


def _leaves_workspace(word: str) -> bool:
    """Any path part is absolute, in a home folder or climbs with `..`."""
    return any(
        p.startswith(("/", "~")) or ".." in PurePosixPath(p).parts for p in _path_parts(word)
    )


def _resolves_inside(word: str, workspace: Path) -> bool:
    """Every path part, resolved from the workspace with symlinks followed, stays inside."""
    root = workspace.resolve()
    for part in _path_parts(word):
        try:
            resolved = (root / part).resolve()
        except (OSError, RuntimeError, ValueError):
            return False
        if resolved != root and not resolved.is_relative_to(root):
            return False
    return True
