"""A slash command's body made into the prompt: `$ARGUMENTS`, `$1`…`$9`, `` !`cmd` `` lines
(run before sending, through the permission gate, output and exit status inlined) and `@path`
references (inlined, size-capped like a read)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Awaitable, Callable
from pathlib import Path

from agent_cli.ext.project_files.catalog import SHELL_LINE

TOKENS = re.compile(
    SHELL_LINE.pattern.replace("(", "(?P<shell>", 1)
    + r"|(?<![\w@`/])@(?P<path>(?:\.{1,2}/|[\w-])[\w./-]*[\w/-])"
)
POSITIONAL = re.compile(r"\$([1-9])(?!\d)")

# runs one `!`cmd`` line: (command) -> what to inline (output and exit status, or why not)
ShellRunner = Callable[[str], Awaitable[str]]


def split_arguments(arguments: str) -> list[str]:
    try:
        return shlex.split(arguments)
    except ValueError:  # an unbalanced quote: words are still words
        return arguments.split()


def substitute(body: str, arguments: str) -> str:
    words = split_arguments(arguments)
    text = body.replace("$ARGUMENTS", arguments)
    text = POSITIONAL.sub(
        lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", text
    )
    if arguments.strip() and "$ARGUMENTS" not in body and not POSITIONAL.search(body):
        text = f"{text.rstrip()}\n\nARGUMENTS: {arguments.strip()}"
    return text


async def expand(
    body: str, arguments: str, workspace: Path, run: ShellRunner, max_file_chars: int
) -> str:
    """One pass over the body with its arguments in: what a `!`cmd`` prints or a file holds
    is never scanned again (a file's text cannot run a command)."""
    text = substitute(body, arguments)
    parts: list[str] = []
    last = 0
    for match in TOKENS.finditer(text):
        parts.append(text[last : match.start()])
        if match.group("shell") is not None:
            parts.append(await run(match.group("shell").strip()))
        else:
            parts.append(_inline(match.group("path"), match.group(0), workspace, max_file_chars))
        last = match.end()
    parts.append(text[last:])
    return "".join(parts)


def _inline(raw: str, written: str, workspace: Path, max_chars: int) -> str:
    path = (workspace / raw).resolve()
    if not path.is_file() or not path.is_relative_to(workspace.resolve()):
        return written  # not a file of the workspace: left as written
    try:
        content = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return written
    cut = len(content) - max_chars
    shown = content[:max_chars] + (f"\n[... {cut:,} more characters]" if cut > 0 else "")
    return f'{raw}\n<file path="{raw}">\n{shown}\n</file>\n'
