"""`logs/llm-calls.jsonl` (one line per model call, the API key's last 4 characters only) and
the exit summary built from the same records."""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent_cli.core.files.paths import make_dirs
from agent_cli.core.settings.schema import Settings
from agent_cli.model.calls import Calls
from agent_cli.model.fingerprint import Fingerprint
from agent_cli.model.usage import Usage


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds")


@dataclass
class CallRecord:
    """One model call as the agent saw it (SDK-internal retries included)."""

    model: str
    endpoint_host: str
    caller: str
    started: float = field(default_factory=time.time)
    ended: float = 0.0
    usage: Usage | None = None
    stop_reason: str | None = None
    error: str | None = None
    cost_usd: float | None = None
    fingerprint: Fingerprint | None = field(default=None, repr=False)
    # judged when it ends with usage (model/calls.py): the cost extension's CallEntry fields
    entry: dict[str, Any] | None = None
    judged_at: float = 0.0  # by the judge's clock (Calls.clock)

    @classmethod
    def begin(cls, model: str, endpoint_host: str, caller: str) -> CallRecord:
        return cls(model=model, endpoint_host=endpoint_host, caller=caller)

    def end(self, usage: Usage | None, stop_reason: str | None, error: str | None) -> None:
        self.ended, self.usage, self.stop_reason, self.error = (
            time.time(),
            usage,
            stop_reason,
            error,
        )

    @property
    def latency_s(self) -> float:
        return max(0.0, self.ended - self.started)


class CallLog:
    """Appends one JSON line per call; keeps figures for the exit summary. Thread-safe."""

    def __init__(self, path: Path | None, key_last4: str | None) -> None:
        self.path = path
        self.key_last4 = key_last4
        self.records: list[CallRecord] = []
        self._lock = threading.Lock()
        self._folder_made = False  # made with the first line (a stat of every parent a call)
        self._fd: int | None = None  # kept open: a call's line was an open and a close
        self.calls = Calls()

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        """The log's file let go of (a later call's line opens it again)."""
        fd, self._fd = getattr(self, "_fd", None), None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def write(self, record: CallRecord) -> None:
        usage = record.usage or Usage()
        line: dict[str, Any] = {
            "start": _iso(record.started),
            "end": _iso(record.ended),
            "latency_s": round(record.latency_s, 4),
            "model": record.model,
            "endpoint": record.endpoint_host,
            "api_key_last4": self.key_last4,
            "caller": record.caller,
            "stop_reason": record.stop_reason,
            "error": record.error,
            **usage.model_dump(),
        }
        with self._lock:
            if record.usage is not None:
                line.update(self.calls.judge(record))
            self.records.append(record)
            if self.path is not None:
                self._append(self.path, json.dumps(line) + "\n")
        if record.entry is not None:
            self.calls.tell(record)

    def _append(self, path: Path, text: str) -> None:
        if not self._folder_made:
            make_dirs(path.parent)
            self._folder_made = True
        if self._fd is not None and os.fstat(self._fd).st_nlink == 0:  # removed since
            os.close(self._fd)
            self._fd = None
        if self._fd is None:
            try:
                self._fd = _open_append(path)
            except FileNotFoundError:  # the folder went away since: made again, as before
                make_dirs(path.parent)
                self._fd = _open_append(path)
        data = text.encode("utf-8")
        written = 0
        while written < len(data):
            written += os.write(self._fd, data[written:])


def _open_append(path: Path) -> int:
    return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)


def key_last4(secrets: tuple[str, ...]) -> str | None:
    return secrets[0][-4:] if secrets else None


def _stats(values: list[float], fmt: str) -> str:
    if not values:
        return "n/a"
    return (
        f"max {format(max(values), fmt)} / min {format(min(values), fmt)} / "
        f"avg {format(statistics.fmean(values), fmt)}"
    )


def exit_summary(log: CallLog, settings: Settings) -> str:
    done = [r for r in log.records if r.usage is not None]
    total = Usage()
    cost: float | None = 0.0
    for r in done:
        assert r.usage is not None
        total = total + r.usage
        c = r.usage.cost(settings.prices.get(r.model) or settings.prices.get(settings.model))
        cost = None if cost is None or c is None else cost + c
    ins = [float(r.usage.input_tokens) for r in done if r.usage]
    outs = [float(r.usage.output_tokens) for r in done if r.usage]
    lat = [r.latency_s for r in log.records]
    cost_text = "n/a" if cost is None or not done else f"${cost:.4f}"
    return "\n".join(
        [
            f"calls: {len(log.records)} ({len(log.records) - len(done)} failed)",
            f"tokens: input {total.input_tokens}, output {total.output_tokens}, "
            f"cache read {total.cache_read_input_tokens}, "
            f"cache write {total.cache_creation_input_tokens}",
            f"input tokens: {_stats(ins, ',.0f')} (cache read {total.cache_read_input_tokens:,})",
            f"output tokens: {_stats(outs, ',.0f')}",
            f"latency s: {_stats(lat, '.2f')}",
            f"cost: {cost_text}",
        ]
    )
