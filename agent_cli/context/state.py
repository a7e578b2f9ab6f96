"""What the pipeline's stages share for one session: thresholds, the token counter, where saved
outputs and archives go, and what happened earlier in the current request's preparation."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent_cli.context.results import ResultRef, save_result
from agent_cli.context.tokens import Thresholds, TokenCounter
from agent_cli.core.files.line_views import InlinePart, LinePart, LineView, write_view
from agent_cli.core.files.paths import Paths, make_dirs
from agent_cli.core.messages import Message, blocks_of
from agent_cli.session.transcript import MessageRecord, TranscriptWriter

Locate = Callable[[Message], tuple[Path, LinePart] | None]
"""The transcript line holding this very message (Session.locate), or None."""


def nowhere(message: Message) -> None:
    return None


@dataclass
class ContextState:
    thresholds: Thresholds
    paths: Paths
    session_id: str
    counter: TokenCounter = field(default_factory=TokenCounter)
    # set when a stage changed already-sent messages while preparing this request: the cached
    # prefix is lost anyway, so later stages may as well compact down to their targets now
    prefix_broken: bool = False
    summary_failures: int = 0
    auto_summary_off: bool = False
    overhead_of: Callable[[], int] | None = None  # the system and tools offered now, raw tokens
    locate: Locate = nowhere
    # the prompt cache forgets a prefix unused for its TTL: then rewriting it costs nothing more
    cache_ttl_s: float = 300.0
    clock: Callable[[], float] = time.monotonic  # tests move time, never sleep
    cache_cold: bool = False  # this request's prefix is past the TTL since the previous request
    last_pass_at: float | None = None

    def begin_pass(self) -> None:
        """A new request is being prepared: nothing rewritten yet; is the cache still warm?"""
        now = self.clock()
        since = None if self.last_pass_at is None else now - self.last_pass_at
        self.cache_cold = since is not None and since > self.cache_ttl_s
        self.last_pass_at = now
        self.prefix_broken = False

    @property
    def rewriting(self) -> bool:
        """Whether this request writes its messages to the cache anew anyway."""
        return self.prefix_broken or self.cache_cold

    @property
    def results_dir(self) -> Path:
        return self.paths.tool_results(self.session_id)

    def archive(self, messages: list[Message]) -> Path:
        return write_archive(self.paths, self.session_id, messages, self.located)

    def save(self, ref: ResultRef, messages: list[Message]) -> Path:
        """The saved copy of a result: a view of the transcript line that holds it, if any."""
        return save_result(
            ref, self.results_dir, self.paths.transcripts, self.located(messages[ref.message])
        )

    def located(self, message: Message) -> tuple[str, LinePart] | None:
        """(transcript file name, line) when a view beside it can point there."""
        found = self.locate(message)
        if found is None or found[0].parent.resolve() != self.paths.transcripts.resolve():
            return None
        return found[0].name, found[1]


def next_archive(paths: Paths, session_id: str) -> Path:
    pattern = re.compile(re.escape(session_id) + r"-(\d+)\.jsonl")
    numbers = [0]
    if paths.archive.is_dir():
        for path in paths.archive.iterdir():
            match = pattern.fullmatch(path.name)
            if match:
                numbers.append(int(match.group(1)))
    return paths.archive_file(session_id, max(numbers) + 1)


def write_archive(
    paths: Paths,
    session_id: str,
    messages: list[Message],
    located: Callable[[Message], tuple[str, LinePart] | None],
) -> Path:
    """Move `messages` out of the live context: one transcript-style message record per line,
    kept as a view of the transcript lines that hold them (a copy of what is held nowhere)."""
    path = next_archive(paths, session_id)
    source: str | None = None
    parts: list[LinePart | InlinePart] = []
    for message in messages:
        found = located(message)
        if found is not None and source in (None, found[0]):
            source = found[0]
            parts.append(found[1])
        else:
            parts.append(InlinePart(record=MessageRecord(message=message).model_dump(mode="json")))
    if source is None:
        writer = TranscriptWriter(path)
        for message in messages:
            writer.append(MessageRecord(message=message))
    else:
        make_dirs(path.parent)
        write_view(path, LineView(kind="jsonl", transcript=source, parts=parts))
    return path


REQUEST_HEADING = "## Current user request (verbatim)"
NOTICE_PREFIX = "[Context "


def request_block(request: str) -> str:
    return f"{REQUEST_HEADING}\n{request}"


def user_texts(message: Message) -> list[str]:
    if message.get("role") != "user":
        return []
    return [str(b.get("text", "")) for b in blocks_of(message) if b.get("type") == "text"]


def current_request(request: str | None, messages: list[Message]) -> str:
    """The user's current request: what the loop recorded for this turn, else (a /compact right
    after a resume) the newest user text, or the request a compaction notice carries."""
    if request and request.strip():
        return request
    for message in reversed(messages):
        for text in reversed(user_texts(message)):
            if text.startswith(REQUEST_HEADING + "\n"):
                return text[len(REQUEST_HEADING) + 1 :]
            if text.strip() and not text.startswith(NOTICE_PREFIX):
                return text
    return ""


def request_visible(request: str, messages: list[Message]) -> bool:
    if not request.strip():
        return True
    return any(request in text for m in messages for text in user_texts(m))
