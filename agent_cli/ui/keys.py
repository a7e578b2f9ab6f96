"""Key bindings of the chat screen: Enter sends, Alt-Enter / Ctrl-J add a line, Ctrl-C stops a turn
(twice on an empty prompt exits), Ctrl-D exits, Esc stops a turn, Shift-Tab cycles the
permission mode; while a question is asked its
answer keys go to the question, never to the input line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

if TYPE_CHECKING:
    from agent_cli.ui.live import ChatScreen


def chat_bindings(screen: ChatScreen) -> KeyBindings:
    kb = KeyBindings()
    asking = Condition(lambda: screen.asking)
    busy = Condition(lambda: screen.busy)

    @kb.add("enter", filter=~asking)
    def _send(event: KeyPressEvent) -> None:
        screen.send()

    @kb.add("escape", "enter", filter=~asking)
    @kb.add("c-j", filter=~asking)
    def _newline(event: KeyPressEvent) -> None:
        screen.buffer.insert_text("\n")

    @kb.add("c-c")
    def _ctrl_c(event: KeyPressEvent) -> None:
        screen.on_ctrl_c()

    @kb.add("c-d", filter=Condition(lambda: not screen.buffer.text))
    def _ctrl_d(event: KeyPressEvent) -> None:
        screen.exit()

    @kb.add("escape", filter=busy | asking)
    def _escape(event: KeyPressEvent) -> None:
        screen.on_ctrl_c()  # one rule for both keys: deny a pending question, stop the turn

    @kb.add("s-tab", filter=~asking)
    def _cycle_mode(event: KeyPressEvent) -> None:
        screen.cycle_mode()

    @kb.add("<any>", filter=asking)
    def _answer_key(event: KeyPressEvent) -> None:
        screen.answer_key(event.data.lower())

    return kb
