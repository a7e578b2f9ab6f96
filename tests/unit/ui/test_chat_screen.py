"""The screen's own behaviour, in process, with prompt-toolkit's pipe input (no terminal)."""

from __future__ import annotations

import asyncio

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from agent_cli.policy.approval import ApprovalRequest, Decision, Denial
from agent_cli.ui.approver import ScreenApprover
from agent_cli.ui.screen.contract import Controller
from agent_cli.ui.screen.live import ChatScreen
from tests.waiting import until

REQUEST = ApprovalRequest(
    tool="bash",
    summary="bash rm -r build",
    pattern="bash(rm -r build*)",
    allow_hint="--permission-mode bypass",
)


class FakeController:
    """Stands in for the REPL: records what the screen sends it."""

    busy = False

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.interrupts = 0

    def live(self, width: int) -> str:
        return ""

    def panel(self, columns: int, rows: int, mode: str) -> str:
        return ""

    def toolbar(self) -> str:
        return "model"

    def submit(self, text: str) -> None:
        self.sent.append(text)

    def interrupt(self) -> None:
        self.interrupts += 1

    def queued_count(self) -> int:
        return 0

    def recall_queued(self) -> str | None:
        return None

    def to_background(self) -> None:
        return None

    def cycle_mode(self) -> None:
        pass

    def tool_log(self) -> str:
        return ""


_checked: type[Controller] = FakeController  # mypy: the fake is a Controller


def drive(keys: list[str], controller: FakeController) -> list[Decision | Denial]:
    """Run the screen, ask the approval question once per key group, return the decisions."""

    async def scenario(screen: ChatScreen, pipe: object) -> list[Decision | Denial]:
        decisions: list[Decision | Denial] = []
        for group in keys:
            asking = asyncio.ensure_future(ScreenApprover(screen).approve(REQUEST))
            await until(lambda: screen.asking, 5, "the question on screen")
            assert "Allow bash rm -r build?" in screen.question.text()
            pipe.send_text(group)  # type: ignore[attr-defined]
            decisions.append(await asyncio.wait_for(asking, 5))
        screen.exit()
        return decisions

    async def main() -> list[Decision | Denial]:
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
            screen = ChatScreen(None)
            result: list[Decision | Denial] = []

            def boot() -> None:
                screen.attach(controller)
                task = asyncio.ensure_future(scenario(screen, pipe))
                task.add_done_callback(lambda t: result.extend(t.result()))

            await screen.run(boot)
            return result

    return asyncio.run(main())


def test_approval_is_answered_inside_the_application():
    controller = FakeController()
    # numbered answers (y and n too); a key that answers nothing is ignored
    assert drive(["2", "x" + "1", "3", "y", "n"], controller) == [
        "project",
        "allow",
        "deny",
        "allow",
        "deny",
    ]
    assert controller.sent == []  # the answer keys never reached the input line


def test_ctrl_c_denies_and_stops_the_turn():
    controller = FakeController()
    assert drive(["\x03"], controller) == ["deny"]
    assert controller.interrupts == 1


def test_enter_sends_and_ctrl_j_adds_a_line():
    controller = FakeController()

    async def main() -> None:
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
            screen = ChatScreen(None)

            async def scenario() -> None:
                pipe.send_text("first line\nsecond\r")
                pipe.send_text("\x1b[200~pasted\rtwo lines\x1b[201~\r")
                pipe.send_text("alt\x1b\renter\r")  # Alt-Enter: its two bytes come together
                await until(lambda: len(controller.sent) >= 3, 5, "the inputs sent")
                screen.exit()

            started: list[asyncio.Future[None]] = []

            def boot() -> None:
                screen.attach(controller)
                started.append(asyncio.ensure_future(scenario()))

            await screen.run(boot)

    asyncio.run(main())
    assert controller.sent == ["first line\nsecond", "pasted\ntwo lines", "alt\nenter"]
