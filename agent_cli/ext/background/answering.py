"""How a background session asks, and where the answer comes in.

It asks as `agent chat` does, not as `agent run` (which denies): an approval it needs is held
(`waiting: approval` in `agent ps`) until an answer arrives on the session's socket, an
owner-only unix socket in the user's private runtime folder (the warm process's), one JSON
line each way:

    {"op": "pending"}                            -> {"pending": [{"tool", "summary", ...}]}
    {"op": "answer", "decision": "allow"}        -> {"ok": true} | {"ok": false, "error"}
        decision: allow | always | deny; with deny, "feedback" reaches the model

The oldest waiting approval takes the answer, the first answer wins. `answer()` below is the
client the attach side calls (`agent attach` will serve this session's ACP on the same socket:
its `session/request_permission` answered in the end by `Waiting.answer`)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import socket
from pathlib import Path
from typing import Any

from agent_cli.core.errors import UsageError
from agent_cli.ext.background.status import Status
from agent_cli.policy.approval import ApprovalRequest, Decision, Denial

ANSWERS: dict[str, Decision] = {"allow": "allow", "always": "always", "deny": "deny"}
ANSWER_WAIT_S = 10.0


def socket_path(record: Path) -> str:
    from agent_cli.cli.warm.place import private_dir

    digest = hashlib.sha256(str(record).encode()).hexdigest()[:16]
    return os.path.join(private_dir(), f"bg-{digest}.sock")  # noqa: PTH118 - a socket's str


class Waiting:
    """The approvals a session waits on, oldest first; the approver port of its session."""

    def __init__(self, status: Status) -> None:
        self.status = status
        self.asked: list[tuple[ApprovalRequest, asyncio.Future[Decision | Denial]]] = []

    async def approve(self, request: ApprovalRequest) -> Decision | Denial:
        future: asyncio.Future[Decision | Denial] = asyncio.get_running_loop().create_future()
        self.asked.append((request, future))
        self.status.waiting("approval", request.summary)
        try:
            return await future
        finally:
            self.asked = [(r, f) for r, f in self.asked if f is not future]
            self.status.answered()

    def pending(self) -> list[dict[str, Any]]:
        return [
            {"tool": r.tool, "summary": r.summary, "preview": r.preview, "pattern": r.pattern}
            for r, _ in self.asked
        ]

    def answer(self, decision: str, feedback: str = "") -> str | None:
        """The oldest question answered; what went wrong, or None."""
        if decision not in ANSWERS:
            return f"{decision!r} is not an answer: allow, always or deny"
        if not self.asked:
            return "nothing is waiting for an answer"
        _, future = self.asked[0]
        given = ANSWERS[decision]
        future.set_result(Denial(feedback) if given == "deny" and feedback else given)
        return None

    def reply(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "pending":
            return {"pending": self.pending()}
        if request.get("op") == "answer":
            error = self.answer(str(request.get("decision")), str(request.get("feedback", "")))
            return {"ok": True} if error is None else {"ok": False, "error": error}
        return {"ok": False, "error": f"unknown op {request.get('op')!r}"}


async def serve(waiting: Waiting, path: str) -> asyncio.AbstractServer:
    """The session's socket: only this user's processes are answered."""
    from agent_cli.cli.warm.wire import peer_uid

    async def one(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.closing(writer):
            if peer_uid(writer.get_extra_info("socket")) != os.getuid():
                return
            try:
                request = json.loads(await reader.readline())
            except ValueError:
                request = {}
            reply = waiting.reply(request if isinstance(request, dict) else {})
            writer.write(json.dumps(reply).encode() + b"\n")
            await writer.drain()

    Path(path).unlink(missing_ok=True)
    server = await asyncio.start_unix_server(one, path)
    Path(path).chmod(0o600)
    return server


def ask(path: str, request: dict[str, Any]) -> dict[str, Any]:
    """One request to a session's socket; UsageError when it does not answer."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(ANSWER_WAIT_S)
        try:
            sock.connect(path)
            sock.sendall(json.dumps(request).encode() + b"\n")
            line = sock.makefile("rb").readline()
        except OSError as e:
            raise UsageError(f"the session does not answer on its socket ({e})") from e
    reply = json.loads(line) if line.strip() else {}
    return reply if isinstance(reply, dict) else {}


def answer(path: str, decision: str, feedback: str = "") -> None:
    """Answer the session's oldest waiting approval (the attach side's call)."""
    reply = ask(path, {"op": "answer", "decision": decision, "feedback": feedback})
    if not reply.get("ok"):
        raise UsageError(str(reply.get("error", "no answer")))
