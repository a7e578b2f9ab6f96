"""Messages between sessions: `agent send`, the model's `send_message`, and a worker's final
answer to the session that started it.

A message is a file in the receiver's inbox, a folder beside its record in this user's
registry (0700; each file 0600, written whole by a rename, so a reader never sees half of
one). A file, not a line on the session's socket: a lead hands a worker its task the moment it
starts it, before the worker's process has a socket or even a Python, and the file waits for
it; and the socket stays the attach protocol's alone. Once the file is there the sender rings
the receiver (SIGUSR1, through a pidfd checked against the recorded process), but only when
its record says it listens: a process that has not set its handler yet would die of the
signal. It reads its inbox after it starts listening, so a message written before is found."""

from __future__ import annotations

import json
import os
import secrets
import signal
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from agent_cli.core.errors import UsageError
from agent_cli.core.files.private_file import write_private
from agent_cli.ext.background import registry

ENV = "AGENT_BACKGROUND_SESSION"  # the record of the session this process is or works for
RING = signal.SIGUSR1
MAX_CHARS = 100_000
ANSWER = "answer"  # a session's final answer to the one that started its turn
MESSAGE = "message"


@dataclass(frozen=True)
class Message:
    text: str
    sender: str = ""  # a session's name; "": the user (`agent send` from a terminal)
    sender_path: str = ""  # its record: where the answer to it goes
    kind: str = MESSAGE  # or ANSWER

    def for_model(self) -> str:
        """What the receiving model reads: who it is from, then the text."""
        if self.kind == ANSWER:
            head = f'[session "{self.sender}" finished; its final answer:]'
        elif self.sender:
            head = f'[message from session "{self.sender}"; send_message answers it]'
        else:
            head = "[message from the user, sent with agent send]"
        return f"{head}\n{self.text}"


def inbox(record: Path) -> Path:
    return record.with_suffix(".inbox")


def sender() -> registry.Record | None:
    """The session this process is, or works for (its bash's `agent send`); None: the user's."""
    path = os.environ.get(ENV)
    return registry.read(Path(path)) if path else None


def find(name: str, here: str) -> registry.Record:
    """The session `name`: the one in workspace `here`, else the only one; UsageError."""
    found = [r for r in registry.records() if r.name == name]
    found = [r for r in found if r.data.get("workspace") == here] or found
    if not found:
        raise UsageError(f"no background session {name} (agent ps lists them)")
    if len(found) > 1:
        places = ", ".join(str(r.data.get("workspace")) for r in found)
        raise UsageError(f"{name} names sessions in {places}: run this in its workspace")
    return found[0]


def post(to: registry.Record, text: str, kind: str = MESSAGE, from_user: bool = False) -> str:
    """`text` into the inbox of session `to`, from this process's session (or the user: also
    with `from_user`, a line typed into an attached terminal), and the receiver rung; its
    state. UsageError when it has ended or the text is too long. Under the record's lock: a
    session that ends idle says so under it, then reads its inbox a last time, so a message is
    either read or refused, never left unread."""
    if not text.strip():
        raise UsageError("the message is empty")
    if len(text) > MAX_CHARS:
        raise UsageError(f"the message has {len(text):,} characters; at most {MAX_CHARS:,}")
    me = None if from_user else sender()
    message = Message(text, me.name if me else "", str(me.path) if me else "", kind)
    name = f"{time.time_ns():020d}-{os.getpid()}-{secrets.token_hex(4)}.json"
    with registry.locked(to.path.with_suffix(".lock")):
        now = registry.read(to.path) or to
        state = now.as_read().state
        if state not in registry.LIVE:
            sid = now.data.get("session_id")
            again = f": agent run --resume {sid} goes on with it" if sid else ""
            raise UsageError(f"{to.name} has ended ({state}){again}")
        folder = inbox(to.path)
        folder.mkdir(mode=0o700, exist_ok=True)
        write_private(folder / name, json.dumps(asdict(message)))
    ring(to.path)
    return state


def ring(path: Path) -> None:
    """The receiver told to read its inbox, if it listens (else it reads it when it does)."""
    record = registry.read(path)
    if record is not None and record.data.get("listening") and record.state in registry.LIVE:
        record.signal(RING)


def take(record: Path) -> list[Message]:
    """The messages waiting for this session, oldest first, taken out of its inbox."""
    found: list[Message] = []
    for path in sorted(inbox(record).glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            found.append(Message(**{k: str(v) for k, v in data.items()}))
        except (OSError, ValueError, TypeError):
            pass  # not a message this version wrote: dropped with the rest
        path.unlink(missing_ok=True)
    return found
