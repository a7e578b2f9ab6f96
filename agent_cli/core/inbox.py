"""What reaches the model between its requests besides tool results: messages the user typed
while a turn ran (steering), and notices: texts the agent gives the model as the user's (a
background job that ended, another session's message), each with what gave it.

The loop takes both just before a request, where every tool_use already has its tool_result,
and adds them to the user message that ends the history (SPEC §16: text after the results).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Inbox:
    queued: list[str] = field(default_factory=list)  # the user's messages, oldest first
    notices: list[tuple[str, str]] = field(default_factory=list)  # (what gave it, its text)
    # told whenever either list changes (the input's "2 queued", a wake-up of an idle chat)
    listeners: list[Callable[[], None]] = field(default_factory=list)

    def queue(self, text: str) -> None:
        if text.strip():
            self.queued.append(text)
            self._changed()

    def notice(self, text: str, source: str = "job") -> None:
        self.notices.append((source, text))
        self._changed()

    def recall(self) -> str | None:
        """The newest queued message, taken back (the user edits it)."""
        if not self.queued:
            return None
        text = self.queued.pop()
        self._changed()
        return text

    def next_queued(self) -> str | None:
        """The oldest queued message, taken out (it becomes the next turn)."""
        if not self.queued:
            return None
        text = self.queued.pop(0)
        self._changed()
        return text

    def give_back(self) -> list[str]:
        """Every queued message, taken back (a stop returns them to the input box)."""
        taken, self.queued = self.queued, []
        if taken:
            self._changed()
        return taken

    def take(self) -> tuple[list[tuple[str, str]], list[str]]:
        """(notices, queued messages) for the next request, both emptied."""
        notices, queued = self.notices, self.queued
        self.notices, self.queued = [], []
        if notices or queued:
            self._changed()
        return notices, queued

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()
