"""How a background session asks, and where the answers come in.

It asks as `agent chat` does, not as `agent run` (which denies, and tells the model nobody
can be asked): an approval, an `ask_user` question or a presented plan is held (`waiting:
approval|question|plan` in `agent ps`) until an answer arrives on the session's socket, an
owner-only unix socket in the user's private runtime folder (the warm process's), one JSON
line each way:

    {"op": "pending"}  -> {"pending": [{"kind": "approval", "summary", ...}, ...]}
    {"op": "answer", "decision": "allow"}                 an approval: allow | always | deny
        (with deny, "feedback" reaches the model)
    {"op": "answer", "answers": [{"question", "chosen": [...], "typed"}]}   a question
    {"op": "answer", "plan": {"choice": "implement", "feedback": ""}}        a plan
    -> {"ok": true} | {"ok": false, "error": "..."}

The oldest thing waiting takes the answer; the first answer wins. The same socket speaks the
Agent Client Protocol (acp/acp_session.py): a connection whose first line is JSON-RPC is an ACP
client (`agent attach`, an editor), whose `session/request_permission` answers end in
`Waiting.resolve`, so attached terminals, editors and `answer()` share one queue."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_cli.core.asking import Answer, PlanDecisionResult, Question
from agent_cli.core.errors import UsageError
from agent_cli.ext.background.status import Status, one_line
from agent_cli.policy.approval import ApprovalRequest, Decision, Denial

ANSWERS: dict[str, Decision] = {"allow": "allow", "always": "always", "deny": "deny"}
ANSWER_WAIT_S = 10.0


def socket_path(record: Path) -> str:
    from agent_cli.cli.warm.place import private_dir

    digest = hashlib.sha256(str(record).encode()).hexdigest()[:16]
    return os.path.join(private_dir(), f"bg-{digest}.sock")  # noqa: PTH118 - a socket's str


def _decision(request: dict[str, Any]) -> Decision | Denial:
    given = ANSWERS.get(str(request.get("decision")))
    if given is None:
        raise ValueError(f"{request.get('decision')!r} is not an answer: allow, always or deny")
    feedback = str(request.get("feedback") or "")
    return Denial(feedback) if given == "deny" and feedback else given


def _answers(request: dict[str, Any]) -> list[Answer]:
    return [Answer.model_validate(a) for a in request["answers"]]


def _plan(request: dict[str, Any]) -> PlanDecisionResult:
    return PlanDecisionResult.model_validate(request["plan"])


READERS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "approval": _decision,
    "question": _answers,
    "plan": _plan,
}


@dataclass
class Held:
    kind: str  # approval | question | plan
    shown: dict[str, Any]  # what an answering side shows of it
    future: asyncio.Future[Any]
    asked: Any = None  # what was asked: the ApprovalRequest, the questions, the plan


class Waiting:
    """What a session waits on, oldest first: its approver port and its front end's Asker."""

    def __init__(self, status: Status) -> None:
        self.status = status
        self.asked: list[Held] = []
        self.held = 0  # things held so far: each one's key
        self.listeners: list[Callable[[Held], None]] = []  # told of each new thing held

    async def _wait(self, kind: str, line: str, shown: dict[str, Any], asked: Any = None) -> Any:
        future = asyncio.get_running_loop().create_future()
        self.held += 1
        item = Held(kind, {"kind": kind, "key": self.held, **shown}, future, asked)
        self.asked.append(item)
        self.status.waiting(kind, one_line(line))
        for listener in self.listeners:
            listener(item)
        try:
            return await item.future
        finally:
            self.asked.remove(item)
            self.status.answered()

    async def approve(self, request: ApprovalRequest) -> Decision | Denial:
        shown = {"tool": request.tool, "summary": request.summary, "preview": request.preview}
        decision: Decision | Denial = await self._wait("approval", request.summary, shown, request)
        return decision

    async def ask(self, questions: list[Question]) -> list[Answer] | None:
        shown = {"questions": [q.model_dump() for q in questions]}
        answers: list[Answer] = await self._wait(
            "question", questions[0].question, shown, questions
        )
        return answers

    async def present_plan(self, plan: str, back_to: str) -> PlanDecisionResult:
        first = next((line for line in plan.splitlines() if line.strip()), "a plan")
        decided: PlanDecisionResult = await self._wait(
            "plan", first, {"plan": plan, "back_to": back_to}, plan
        )
        return decided

    def answer(self, request: dict[str, Any]) -> str | None:
        """The oldest waiting thing answered (the one of `request["key"]` when given); what
        went wrong, or None."""
        key = request.get("key")
        found = [i for i in self.asked if key is None or i.shown["key"] == key]
        if not found:
            return "nothing is waiting for an answer" if key is None else "answered already"
        item = found[0]
        try:
            value = READERS[item.kind](request)
        except (KeyError, TypeError, ValueError, ValidationError) as e:
            return f"not an answer to the waiting {item.kind}: {one_line(str(e))}"
        self.resolve(item, value)
        return None

    def resolve(self, item: Held, value: Any) -> bool:
        """`item` answered with `value`; False when it was answered already (the first wins)."""
        if item.future.done():
            return False
        item.future.set_result(value)
        return True

    def reply(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "pending":
            return {"pending": [item.shown for item in self.asked]}
        if request.get("op") == "answer":
            error = self.answer(request)
            return {"ok": True} if error is None else {"ok": False, "error": error}
        return {"ok": False, "error": f"unknown op {request.get('op')!r}"}


Client = Callable[[bytes, asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def serve(waiting: Waiting, path: str, acp: Client | None = None) -> asyncio.AbstractServer:
    """The session's socket: only this user's processes are answered; a connection that
    begins with JSON-RPC is handed to `acp` with its first line."""
    from agent_cli.cli.warm.wire import peer_uid

    async def one(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.closing(writer):
            if peer_uid(writer.get_extra_info("socket")) != os.getuid():
                return
            first = await reader.readline()
            try:
                request = json.loads(first)
            except ValueError:
                request = {}
            request = request if isinstance(request, dict) else {}
            if "jsonrpc" in request and acp is not None:
                await acp(first, reader, writer)
                return
            reply = waiting.reply(request)
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


def answer(path: str, **given: Any) -> None:
    """Answer what the session waits on (the attach side's call): `decision="allow"`,
    `answers=[...]` or `plan={...}`, as the socket takes them; UsageError when refused."""
    reply = ask(path, {"op": "answer", **given})
    if not reply.get("ok"):
        raise UsageError(str(reply.get("error", "no answer")))
