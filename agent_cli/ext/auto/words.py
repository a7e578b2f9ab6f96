"""A shell command as auto mode's fixed rules read it: the simple commands it runs, each as its
words, however a model wrote it (extra spaces, quotes, `&&` chains and pipes, `bash -c '...'`,
`env`/`sudo` and `VAR=value` prefixes). Read for what it names, never run."""

from __future__ import annotations

import re
import shlex

_SEPARATORS = re.compile(r"&&|\|\||[;|&\n]|\$\(|`|\)")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PREFIXES = frozenset({"sudo", "env", "command", "nohup", "time", "exec", "nice", "doas", "xargs"})
_VALUED = frozenset({"-u", "-g", "-C", "-S", "-p", "-U", "-n", "-D", "-h", "-c"})  # sudo/env/nice
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_DEPTH = 4  # `bash -c "sh -c '...'"` and no deeper


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=False, posix=True)
    except ValueError:  # an unclosed quote: the words as they stand
        return text.replace('"', " ").replace("'", " ").split()


def _segments(command: str) -> list[str]:
    """The simple commands of a line: split on the operators outside quotes."""
    parts: list[str] = []
    current, quote = [], ""
    i = 0
    while i < len(command):
        ch = command[i]
        if quote:
            quote = "" if ch == quote else quote
            current.append(ch)
        elif ch in "'\"":
            quote = ch
            current.append(ch)
        elif ch == "\\" and i + 1 < len(command):
            current += [ch, command[i + 1]]
            i += 1
        elif m := _SEPARATORS.match(command, i):
            parts.append("".join(current))
            current = []
            i = m.end() - 1
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    return [p for p in parts if p.strip()]


def _unwrapped(words: list[str]) -> list[str]:
    """Without the `VAR=value`, `sudo`, `env` ... in front of the program."""
    while words and (_ASSIGNMENT.match(words[0]) or words[0] in _PREFIXES):
        words = words[1:]
        while words and words[0].startswith("-"):  # `sudo -u x`, `env -i`: their options
            words = words[2:] if words[0] in _VALUED else words[1:]
    return words


def commands(command: str, depth: int = 0) -> list[list[str]]:
    """The simple commands `command` runs, each its words with the program first (a shell's
    `-c` script read as commands of its own)."""
    found: list[list[str]] = []
    for segment in _segments(command):
        words = _unwrapped(_split(segment))
        if not words:
            continue
        program = words[0].rsplit("/", 1)[-1]
        if program in _SHELLS and "-c" in words[1:] and depth < _DEPTH:
            script = words[words.index("-c") + 1 :]
            found += commands(script[0], depth + 1) if script else []
        elif program == "eval" and depth < _DEPTH:
            found += commands(" ".join(words[1:]), depth + 1)
        else:
            found.append([program, *words[1:]])
    return found
