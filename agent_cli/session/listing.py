"""What a list of sessions says of each one, read fast: `agent sessions list`, /sessions, the
/resume picker and `--continue` all take it from here, so they agree on the order (newest
activity first), the message count (every message recorded) and who was forked from whom.

Transcripts only grow, so each one's summary is kept with how many of its bytes it has read
(`.transcripts/listing.json`): a listing reads only what was appended since, and a file that
shrank or was replaced is read again whole. Plain Python (no pydantic): the listing runs
before the heavier modules would have loaded."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from agent_cli.core.files.paths import Paths
from agent_cli.core.markers import typed_prompt
from agent_cli.session.shape import RECORD_TYPES, checked_message

log = logging.getLogger("agent_cli.session.transcript")  # the same words as resume's reader
CACHE = "listing.json"
VERSION = 2  # a listing kept by another version is read again


@dataclass
class SessionSummary:
    id: str
    workspace: str = ""
    model: str = ""
    started: str = ""
    worktree: str | None = None
    title: str = ""  # /rename's (the newest)
    forked_from: str | None = None  # `parent` (a fork) or `parent@checkpoint` (a rewind)
    messages: int = 0  # every message recorded, before compactions too
    replies: int = 0
    calls: int = 0  # model calls (usage records)
    first_prompt: str = ""
    # a fork's first prompt of its own: its copied records are older than its first line
    own_prompt: str = ""
    last_activity: str = ""
    broken: list[int] = field(default_factory=list)  # line numbers skipped
    # how far it was read: the file (inode), bytes of whole lines read, lines read
    inode: int = 0
    read: int = 0
    lines: int = 0

    @property
    def parent(self) -> str | None:
        return self.forked_from.partition("@")[0] if self.forked_from else None

    @property
    def prompt(self) -> str:
        """What tells it apart: its title (/rename), else a fork's own prompt, else the first."""
        return f"“{self.title}”" if self.title else self.own_prompt or self.first_prompt

    def take(self, raw: bytes) -> None:
        self.lines += 1
        if not raw.strip():
            return
        try:
            record = json.loads(raw)
            kind = record.get("type") if isinstance(record, dict) else None
            if kind not in RECORD_TYPES:
                raise ValueError(f"not a record: {kind!r}")
            if kind == "message":
                checked_message(record.get("message"))
        except ValueError:  # json's errors are ValueErrors too
            self.broken.append(self.lines)
            return
        ts = record.get("ts")
        ts = ts if isinstance(ts, str) else ""
        self.last_activity = max(self.last_activity, ts)
        if kind == "session" and self.lines == 1:
            self._header(record, ts)
        elif kind == "message":
            self._message(record["message"], ts)
        elif kind == "usage":
            self.calls += 1
        elif kind == "title" and isinstance(record.get("title"), str):
            self.title = record["title"]

    def _header(self, record: dict[str, Any], ts: str) -> None:
        for name in ("workspace", "model", "started", "worktree", "forked_from"):
            value = record.get(name)
            if isinstance(value, str):
                setattr(self, name, value)
        self.started = self.started or ts

    def _message(self, message: dict[str, Any], ts: str) -> None:
        self.messages += 1
        if message["role"] == "assistant":
            self.replies += 1
            return
        prompt = _prompt_of(message["content"])
        if prompt and not self.first_prompt:
            self.first_prompt = prompt
        if prompt and self.forked_from and not self.own_prompt and ts > self.started:
            self.own_prompt = prompt


def _prompt_of(content: str | list[dict[str, Any]]) -> str:
    if isinstance(content, str):
        text = content
    else:
        text = next((str(b["text"]) for b in content if b["type"] == "text"), "")
    typed = typed_prompt(text) if text.strip() else None
    return " ".join(typed.split()) if typed else ""


def _advance(summary: SessionSummary, path: Path, stat: os.stat_result) -> bool:
    """Read what was appended since; False when nothing was."""
    if summary.inode != stat.st_ino or stat.st_size < summary.read:
        summary = _reset(summary, stat.st_ino)
    if stat.st_size == summary.read:
        return False
    with path.open("rb") as f:
        f.seek(summary.read)
        data = f.read()
    whole = data.rfind(b"\n") + 1  # a line still being written is read next time
    for raw in data[:whole].splitlines():
        summary.take(raw)
    summary.read += whole
    return whole > 0


def _reset(summary: SessionSummary, inode: int) -> SessionSummary:
    fresh = SessionSummary(id=summary.id, inode=inode)
    for name in (f.name for f in fields(SessionSummary)):
        setattr(summary, name, getattr(fresh, name))
    return summary


def _load_cache(path: Path) -> dict[str, SessionSummary]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("version") != VERSION:
            return {}
        return {k: SessionSummary(**v) for k, v in raw["sessions"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}  # absent, or unreadable: every transcript is read again


def _save_cache(path: Path, found: dict[str, SessionSummary]) -> None:
    from agent_cli.core.files.private_file import write_private  # tempfile: only to write

    data = {"version": VERSION, "sessions": {k: asdict(v) for k, v in found.items()}}
    try:
        write_private(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    except OSError as e:  # a read-only state directory: the next listing reads again
        log.info("the session listing was not kept (%s)", e)


def summaries(paths: Paths) -> list[SessionSummary]:
    """Every session of the state directory, the newest activity first."""
    folder = paths.transcripts
    try:
        entries = [e for e in os.scandir(folder) if e.name.endswith(".jsonl") and e.is_file()]
    except OSError:
        return []
    cache = folder / CACHE
    known = _load_cache(cache)
    found: dict[str, SessionSummary] = {}
    changed = len(known) != len(entries)
    for entry in entries:
        sid = entry.name[: -len(".jsonl")]
        summary = known.get(sid) or SessionSummary(id=sid)
        try:
            changed |= _advance(summary, Path(entry.path), entry.stat())
        except OSError:
            continue  # gone meanwhile
        found[sid] = summary
        for number in summary.broken:
            log.warning("%s:%d: skipped a broken transcript line", entry.path, number)
    if changed:
        _save_cache(cache, found)
    return sorted(found.values(), key=lambda s: (s.last_activity, s.id), reverse=True)


def when(summary: SessionSummary) -> str:
    return summary.last_activity[:16].replace("T", " ")


def origin(summary: SessionSummary) -> str:
    """`fork of ID` or `rewind of ID`: where its copied history came from."""
    if not summary.forked_from:
        return ""
    kind = "rewind" if "@" in summary.forked_from else "fork"
    return f"{kind} of {summary.parent}"


def describe(summary: SessionSummary, prompt_width: int = 60) -> str:
    """A session as every listing shows it: last activity, messages, the prompt that tells it
    apart (`tags` says the rest)."""
    prompt = summary.prompt[:prompt_width] or "(no prompt yet)"
    n = summary.messages
    return f"{when(summary)}  {n:>4} {'msg ' if n == 1 else 'msgs'}  {prompt}"  # one column


def tags(summary: SessionSummary) -> list[str]:
    """Where its copied history came from, and its worktree's branch."""
    out = [origin(summary)] if summary.forked_from else []
    return out + ([f"[agent/{summary.worktree}]"] if summary.worktree else [])


def latest(found: list[SessionSummary], workspace: Path | None = None) -> SessionSummary | None:
    """What `--continue` resumes: the newest session with a reply, of `workspace` if given
    (one whose first line is lost is the workspace's holding it)."""
    for summary in found:
        if summary.replies and (workspace is None or summary.workspace in (str(workspace), "")):
            return summary
    return None
