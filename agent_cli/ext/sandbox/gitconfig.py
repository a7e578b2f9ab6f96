"""Is what a confined command wrote in a new `.git` what `git init` (and `git remote add`,
`git branch -u`, `git config user.*`) writes, or could the user's next `git status` run a
program from it? A config passes only when every line is a key of the short list below, in
plain syntax; anything else (core.fsmonitor, core.hooksPath, filters, drivers, includes,
aliases, a line this parser does not know) fails it, and it is moved aside."""

from __future__ import annotations

import contextlib
import os
import re
import stat

MAX_BYTES = 65_536
SAFE_KEYS = {
    "core": {
        "repositoryformatversion",
        "filemode",
        "bare",
        "logallrefupdates",
        "ignorecase",
        "precomposeunicode",
        "symlinks",
        "autocrlf",
        "eol",
        "safecrlf",
    },
    "extensions": {"objectformat"},
    "init": {"defaultbranch"},
    "user": {"name", "email"},
    "remote": {"url", "fetch", "pushurl"},
    "branch": {"remote", "merge", "rebase"},
}
_SECTION = re.compile(r'\[([A-Za-z0-9-]+)(?:\s+"[^"\\]*")?\]')
_KEY = re.compile(r"([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?")


def config_is_plain(text: str) -> bool:
    """Every line blank, a comment, a section header or a key on the safe list."""
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if header := _SECTION.fullmatch(line):
            section = header.group(1).lower()
            continue
        key = _KEY.fullmatch(line)
        if key is None or section is None or line.endswith("\\"):
            return False
        if key.group(1).lower() not in SAFE_KEYS.get(section, set()):
            return False
        if "::" in (key.group(2) or ""):  # a remote helper named by the URL runs
            return False
    return True


def harmless_config(fd: int, name: str) -> bool:
    try:
        file = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
    except OSError:
        return False
    try:
        data = os.read(file, MAX_BYTES + 1)
    finally:
        os.close(file)
    return len(data) <= MAX_BYTES and config_is_plain(data.decode("utf-8", "replace"))


def harmless_hooks(fd: int, name: str) -> bool:
    """Only `*.sample` files, which git never runs."""
    try:
        folder = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
    except OSError:
        return False
    try:
        for entry in os.listdir(folder):  # noqa: PTH208 - listed by descriptor, not path
            info = os.stat(entry, dir_fd=folder, follow_symlinks=False)
            if not (stat.S_ISREG(info.st_mode) and entry.endswith(".sample")):
                return False
        return True
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            os.close(folder)
