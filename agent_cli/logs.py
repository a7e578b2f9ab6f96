"""`logs/agent.log` (rotated monthly, 12 kept), `logs/llm-calls.jsonl`, and the exit summary."""

from __future__ import annotations

import json
import logging
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from logging.handlers import TimedRotatingFileHandler
from pathlib import Path
from typing import Any

from agent_cli.model.usage import Usage
from agent_cli.paths import Paths
from agent_cli.redaction import redact
from agent_cli.redaction import secrets_from_env as secrets_from_env
from agent_cli.settings import Settings

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class MonthlyFileHandler(TimedRotatingFileHandler):
    """Rolls over at the first midnight of each month; `backupCount` old months are kept."""

    def computeRollover(self, currentTime: int) -> int:
        now = datetime.fromtimestamp(currentTime)
        year, month = (now.year + 1, 1) if now.month == 12 else (now.year, now.month + 1)
        return int(datetime(year, month, 1).timestamp())

    def _open(self) -> Any:
        # created on the first record: a command that logs nothing leaves no logs/ behind
        Path(self.baseFilename).parent.mkdir(parents=True, exist_ok=True)
        return super()._open()

    def handleError(self, record: logging.LogRecord) -> None:
        # the log cannot be written (disk full, read-only): one line, never a traceback
        if not getattr(self, "_failed", False):
            self._failed = True
            error = sys.exc_info()[1]
            sys.stderr.write(f"agent: cannot write {self.baseFilename}: {error}\n")


class _Formatter(logging.Formatter):
    """Redacts the whole formatted record (tracebacks included); on stderr, with
    `tracebacks=False`, only the message line is written (the traceback stays in the file)."""

    def __init__(self, fmt: str, secrets: tuple[str, ...], tracebacks: bool) -> None:
        super().__init__(fmt)
        self.secrets = secrets
        self.tracebacks = tracebacks

    def format(self, record: logging.LogRecord) -> str:
        if self.tracebacks:
            return redact(super().format(record), self.secrets)
        return redact(self.formatMessage(_with_message(record)), self.secrets)


def _with_message(record: logging.LogRecord) -> logging.LogRecord:
    record.message = record.getMessage()
    return record


def _not_file_only(record: logging.LogRecord) -> bool:
    return not getattr(record, "file_only", False)


# `log.warning(..., extra=FILE_ONLY)`: for the log file only, when the user is told otherwise
FILE_ONLY = {"file_only": True}


def setup_logging(paths: Paths, secrets: tuple[str, ...], quiet: bool = False) -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    root.setLevel(logging.INFO)
    to_file = MonthlyFileHandler(paths.agent_log, backupCount=12, encoding="utf-8", delay=True)
    to_file.setFormatter(_Formatter(LOG_FORMAT, secrets, tracebacks=True))
    root.addHandler(to_file)
    if not quiet:
        to_stderr = logging.StreamHandler()
        to_stderr.setLevel(logging.WARNING)
        to_stderr.setFormatter(_Formatter("agent: %(levelname)s: %(message)s", secrets, False))
        to_stderr.addFilter(_not_file_only)
        root.addHandler(to_stderr)
    for noisy in ("httpx", "httpx2", "httpcore", "httpcore2", "anthropic"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def logging_to_file() -> bool:
    """Whether setup_logging ran (a traceback logged now lands in logs/agent.log)."""
    return any(isinstance(h, MonthlyFileHandler) for h in logging.getLogger().handlers)


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
            self.records.append(record)
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(line) + "\n")


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
            f"input tokens: {_stats(ins, ',.0f')} (cache read {total.cache_read_input_tokens:,})",
            f"output tokens: {_stats(outs, ',.0f')}",
            f"latency s: {_stats(lat, '.2f')}",
            f"cost: {cost_text}",
        ]
    )
