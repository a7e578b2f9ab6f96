"""A fake Anthropic Messages API for tests: a real HTTP server driven by scripts.

See server.py (FakeAnthropic) and script.py (Script builders).
"""

from .routing import first_user_contains, has_tools, system_contains
from .script import ErrorReply, Reply, Respond, Script
from .server import FakeAnthropic, RecordedRequest, Violation

__all__ = [
    "ErrorReply",
    "FakeAnthropic",
    "RecordedRequest",
    "Reply",
    "Respond",
    "Script",
    "Violation",
    "first_user_contains",
    "has_tools",
    "system_contains",
]
