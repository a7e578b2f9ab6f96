"""No command runs before the watcher knows its group. A command is started behind a gate: a
shell that first reads one line from a pipe only the agent can write, and runs the command
(`exec bash -c COMMAND`, the same process and group) only on "go". The agent says go once it
has told the watcher the group (guard.py reads every line written before its pipe
closes, so a line once written is never lost). An agent killed before that closes the pipe
by dying: the gate reads the end of input and exits 125 without running anything."""

from __future__ import annotations

import contextlib
import os

NOT_STARTED = 125


class StartGate:
    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()  # neither inherited by any other child

    def argv(self, command: str) -> list[str]:
        return self.wrap(["bash", "-c", command])

    def wrap(self, argv: list[str]) -> list[str]:
        """`argv` (the shell, or the sandbox around it) run behind the gate."""
        n = self.read_fd
        script = f'IFS= read -r go <&{n}; exec {n}<&-; [ "$go" = go ] || exit {NOT_STARTED}; '
        return ["bash", "-c", script + 'exec "$@"', "agent-gate", *argv]

    @property
    def pass_fds(self) -> tuple[int]:
        return (self.read_fd,)

    def spawned(self) -> None:
        """In the agent, once the gate's process exists: its end of the pipe is its own."""
        self._close("read_fd")

    def open(self) -> None:
        """The group is known: the command runs. Idempotent."""
        if self.write_fd >= 0:
            with contextlib.suppress(OSError):  # the gate was killed meanwhile
                os.write(self.write_fd, b"go\n")
        self.close()

    def close(self) -> None:
        """Never opened: the command does not run (its gate exits 125)."""
        self._close("read_fd")
        self._close("write_fd")

    def _close(self, name: str) -> None:
        fd = getattr(self, name)
        if fd >= 0:
            setattr(self, name, -1)
            os.close(fd)
