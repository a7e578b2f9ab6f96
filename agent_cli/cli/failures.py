"""The one line (and exit code) a failure becomes. No typer here: `agent chat` starts without it."""

from __future__ import annotations

import logging

from agent_cli.core.errors import AgentError


def failure_line(error: BaseException) -> tuple[str, int]:
    if isinstance(error, AgentError):
        return str(error), error.exit_code
    if isinstance(error, KeyboardInterrupt):
        return "interrupted", 130
    assert isinstance(error, Exception)
    return internal_error(error), 1


def internal_error(error: Exception) -> str:
    """The one line the user sees for a bug; its traceback goes to logs/agent.log only."""
    from agent_cli.core.files.logs import FILE_ONLY, logging_to_file

    text = f"internal error: {type(error).__name__}: {error}"
    if not logging_to_file():
        return text
    logging.getLogger("agent_cli").error("%s", text, exc_info=error, extra=FILE_ONLY)
    return f"{text} (see logs/agent.log)"
