"""`logs/agent.log`: rotated monthly, 12 kept, secrets redacted, warnings also on stderr."""

from __future__ import annotations

import logging
import sys
from datetime import datetime
from logging.handlers import TimedRotatingFileHandler
from pathlib import Path
from typing import Any

from agent_cli.core.files.paths import Paths, make_dirs
from agent_cli.core.text.redaction import redact
from agent_cli.core.text.redaction import secrets_from_env as secrets_from_env

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class MonthlyFileHandler(TimedRotatingFileHandler):
    """Rolls over at the first midnight of each month; `backupCount` old months are kept."""

    def computeRollover(self, currentTime: int) -> int:
        now = datetime.fromtimestamp(currentTime)
        year, month = (now.year + 1, 1) if now.month == 12 else (now.year, now.month + 1)
        return int(datetime(year, month, 1).timestamp())

    def _open(self) -> Any:
        # created on the first record: a command that logs nothing leaves no logs/ behind
        make_dirs(Path(self.baseFilename).parent)
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
    _record_only_what_is_written()
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


def _record_only_what_is_written() -> None:
    """No format here shows the caller's file and line or the thread: a record looks up
    neither (a walk up the stack and a lookup each; the logging module's own switches). The
    process id stays: the warm process's log shows it."""
    logging._srcfile = None  # the documented switch
    logging.logThreads = False
    logging.logMultiprocessing = False


def logging_to_file() -> bool:
    """Whether setup_logging ran (a traceback logged now lands in logs/agent.log)."""
    return any(isinstance(h, MonthlyFileHandler) for h in logging.getLogger().handlers)
