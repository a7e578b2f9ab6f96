"""The chat screen's keys for work that takes a while (ui/input/keys.py binds them): Up on an empty
input takes the newest queued message back to edit it; Ctrl-B moves the running foreground
command to the background. And the ping's bytes, written straight to the terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer

if TYPE_CHECKING:
    from agent_cli.ui.screen.contract import Controller


class JobKeys:
    """Mixed into ChatScreen (ui/screen/live.py), which provides these."""

    controller: Controller | None
    buffer: Buffer
    app: Application[None]

    def invalidate(self) -> None:
        raise NotImplementedError

    @property
    def can_recall(self) -> bool:
        return not self.buffer.text and bool(self.controller and self.controller.queued_count())

    def recall_queued(self) -> None:
        text = self.controller.recall_queued() if self.controller else None
        if text is not None:
            self.buffer.text = text
            self.buffer.cursor_position = len(text)
            self.invalidate()

    def to_background(self) -> None:
        if self.controller is not None:
            self.controller.to_background()

    def ping(self, sequence: str) -> None:
        """BEL / OSC bytes: raw, outside any frame, so nothing of the screen is redrawn."""
        self.app.output.write_raw(sequence)
        self.app.output.flush()
