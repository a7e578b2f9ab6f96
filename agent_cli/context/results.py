"""Tool results inside a history: where they are, whether the model has seen them, and their
saved copies on disk.

A result counts as saved only when a file inside this session's tool-results directory, named
after the result's own tool_use id, exists: a path printed inside tool output is never trusted
(a forged "saved at /etc/passwd" would otherwise make the original look safe to drop).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.files.line_views import (
    LinePart,
    LineView,
    ViewBroken,
    content_text,
    read_view,
    write_view,
)
from agent_cli.core.files.paths import make_dirs, result_file_stem
from agent_cli.core.messages import Block, Message, blocks_of

VIEW_WORTH = 1_024  # characters: below this a view (~250 bytes) saves less than it costs
PLACEHOLDER = "[Earlier tool result saved at {path}]"
PLACEHOLDER_PREFIX = "[Earlier tool result saved at "
PREVIEW_NOTE = (
    "\n\n[Preview of a {size:,}-character tool result; the whole result is saved at {path} "
    "(open it with read_file, using offset/limit).]"
)


@dataclass(frozen=True)
class ResultRef:
    """One tool_result block: its position, its text, and whether a reply came after it."""

    message: int
    block: int
    tool_use_id: str
    text: str
    seen: bool


def result_text(block: Block) -> str | None:
    """The text of a tool_result, or None when it holds something other than text (an image)."""
    return content_text(block.get("content", ""))


def last_assistant(messages: list[Message]) -> int:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "assistant":
            return i
    return -1


def find_results(messages: list[Message], start: int = 0) -> list[ResultRef]:
    """Every text tool_result from message `start` on, oldest first. A result after the last
    assistant message has not been seen by the model yet."""
    newest_reply = last_assistant(messages)
    refs: list[ResultRef] = []
    for i in range(start, len(messages)):
        message = messages[i]
        if message.get("role") != "user":
            continue
        for j, block in enumerate(blocks_of(message)):
            text = result_text(block) if block.get("type") == "tool_result" else None
            if text is not None:
                refs.append(ResultRef(i, j, str(block.get("tool_use_id")), text, i < newest_reply))
    return refs


def is_placeholder(text: str) -> bool:
    return text.startswith(PLACEHOLDER_PREFIX) and text.endswith("]") and "\n" not in text


def trusted_saved_path(text: str, tool_use_id: str, folder: Path) -> Path | None:
    """A path named in `text` that really is this result's saved copy, or None."""
    root = folder.resolve()
    stem = result_file_stem(tool_use_id)
    for match in re.finditer(re.escape(str(folder)) + r"/([A-Za-z0-9_.-]+\.txt)", text):
        candidate = (folder / match.group(1)).resolve()
        name_ok = candidate.name == f"{stem}.txt" or candidate.name.startswith(f"{stem}.")
        if name_ok and candidate.parent == root and candidate.is_file():
            return candidate
    return None


def save_result(
    ref: ResultRef, folder: Path, transcripts: Path, held: tuple[str, LinePart] | None = None
) -> Path:
    """The saved copy of a result: the trusted one it names, or a new file: a view of the
    transcript line that `held` names (the transcript has the text already), else its text."""
    trusted = trusted_saved_path(ref.text, ref.tool_use_id, folder)
    if trusted is not None:
        return trusted
    make_dirs(folder)
    stem = result_file_stem(ref.tool_use_id)
    path, n = folder / f"{stem}.txt", 1
    while path.exists():
        if saved_text(path, transcripts) == ref.text:
            return path
        n += 1
        path = folder / f"{stem}.{n}.txt"
    if held is None or len(ref.text) < VIEW_WORTH:
        path.write_text(ref.text, encoding="utf-8")
    else:
        part = held[1].model_copy(update={"block": ref.block, "tool_use_id": ref.tool_use_id})
        write_view(path, LineView(kind="text", transcript=held[0], parts=[part]))
    return path


def saved_text(path: Path, transcripts: Path) -> str | None:
    """What a saved output holds (through its view), or None when it cannot be read."""
    try:
        viewed = read_view(path, transcripts)
        return viewed if viewed is not None else path.read_text(encoding="utf-8", errors="replace")
    except (OSError, ViewBroken):
        return None


def placeholder(path: Path) -> str:
    return PLACEHOLDER.format(path=path)


def preview(text: str, path: Path, chars: int) -> str:
    return text[:chars].rstrip() + PREVIEW_NOTE.format(size=len(text), path=path)


def replace_results(messages: list[Message], new_text: dict[tuple[int, int], str]) -> list[Message]:
    """A copy of `messages` with the given tool_result contents replaced. Untouched messages stay
    the same objects, so what was sent before is still recognisable."""
    out = list(messages)
    for i in sorted({m for m, _ in new_text}):
        blocks = blocks_of(messages[i])
        for (m, j), text in new_text.items():
            if m == i:
                blocks[j] = {**blocks[j], "content": text}
        out[i] = {**messages[i], "content": blocks}
    return out
