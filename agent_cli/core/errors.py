"""The one error tree. Only these exceptions cross module boundaries.

    AgentError                 exit 1: the run failed
    ├── ModelError             the API failed after the SDK's retries
    │   ├── PromptTooLongError the request exceeds the model's context window
    │   ├── OverloadedError    529 / overloaded after retries
    │   └── StreamBrokenError  the stream broke and the whole-request retries ran out
    ├── MaxTurnsError          --max-turns reached
    ├── HookVetoError          a user_prompt_submit hook vetoed the prompt
    ├── IndexUnreadableError   notes/index.sqlite3 cannot be opened (search_index.py; it is
    │                          an sqlite3.DatabaseError too)
    ├── StateWriteError        the state directory cannot be written (read-only, disk full)
    ├── UsageError             exit 2: bad flag or argument, unknown session
    ├── ConfigError            exit 2: bad settings key or value
    └── CredentialsError       exit 2: no API key / auth token

Tool failures are never exceptions: they are `ToolResult(is_error=True)`.
"""

from __future__ import annotations


class AgentError(Exception):
    """A failure the user sees as one line; `exit_code` is the process exit status."""

    exit_code = 1

    @property
    def message(self) -> str:
        return str(self)


class ModelError(AgentError):
    pass


class PromptTooLongError(ModelError):
    pass


TOO_LONG_HINT = (
    "Compacting the context did not make it fit: start a new session, or lower the token "
    'thresholds under "context" in .agent/settings.json.'
)


class OverloadedError(ModelError):
    pass


class StreamBrokenError(ModelError):
    pass


class ConnectionFailedError(ModelError):
    """The model's endpoint could not be reached (refused, DNS, TLS, timeout)."""


class MaxTurnsError(AgentError):
    pass


class HookVetoError(AgentError):
    pass


class StateWriteError(AgentError):
    pass


class UsageError(AgentError):
    exit_code = 2


class ConfigError(AgentError):
    exit_code = 2


class CredentialsError(AgentError):
    exit_code = 2
