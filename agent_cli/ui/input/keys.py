"""Key bindings of the chat screen: Enter sends, Alt-Enter / Ctrl-J add a line, Ctrl-C stops a turn
(twice on an empty prompt exits), Ctrl-D exits, Esc stops a turn, Shift-Tab cycles the
permission mode; while a question is asked its answer keys go to the question, never to the input
line. F2 cycles the side panel (full, compact, hidden). A picker open (/resume) takes
Up/Down/Enter/Esc. Up on an empty input recalls a queued message; Ctrl-B moves the running command
to the background. Ctrl-G opens the input in $EDITOR."""

from __future__ import annotations

from typing import Protocol

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition, Filter, is_searching, vi_insert_mode
from prompt_toolkit.key_binding import (
    KeyBindings,
    KeyBindingsBase,
    KeyPressEvent,
    merge_key_bindings,
)
from prompt_toolkit.keys import Keys

from agent_cli.ui.dialogs.region import Dialogs
from agent_cli.ui.screen.picker import Picker


class KeyTarget(Protocol):
    """What the keys act on (ui/screen/live.py's ChatScreen); a protocol so live.py imports keys.py
    and never the other way round."""

    buffer: Buffer

    @property
    def asking(self) -> bool: ...

    @property
    def busy(self) -> bool: ...

    def send(self) -> None: ...

    def on_ctrl_c(self) -> None: ...

    def exit(self) -> None: ...

    def answer(self, value: str) -> bool: ...

    def answer_key(self, key: str) -> None: ...

    def interrupt(self) -> None: ...

    def cycle_mode(self) -> None: ...

    def cycle_panel(self) -> None: ...

    @property
    def can_recall(self) -> bool: ...

    def recall_queued(self) -> None: ...

    def to_background(self) -> None: ...

    def show_tools(self) -> None: ...

    @property
    def picker(self) -> Picker: ...

    @property
    def dialogs(self) -> Dialogs: ...

    def on_cursor_report(self, row: int, column: int) -> None: ...


def chat_bindings(screen: KeyTarget) -> KeyBindingsBase:
    """The screen's keys, then the open dialog's (later bindings win a key both take)."""
    return merge_key_bindings([_screen_bindings(screen), screen.dialogs.bindings()])


def _screen_bindings(screen: KeyTarget) -> KeyBindings:
    kb = KeyBindings()
    picking = Condition(lambda: screen.picker.picking)
    asking = Condition(lambda: screen.asking) | picking
    busy = Condition(lambda: screen.busy)

    @kb.add("enter", filter=~asking & ~is_searching)  # Enter in a Ctrl-R search takes the match
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

    # in vi mode the first Esc of a running turn leaves insert mode; Esc in normal mode stops
    @kb.add("escape", filter=(busy & ~vi_insert_mode) | (asking & ~picking))
    def _escape(event: KeyPressEvent) -> None:
        screen.on_ctrl_c()  # one rule for both keys: deny a pending question, stop the turn

    @kb.add("c-g", filter=~asking)
    def _editor(event: KeyPressEvent) -> None:
        screen.buffer.open_in_editor()  # $VISUAL or $EDITOR; the text comes back to edit, unsent

    @kb.add("s-tab", filter=~asking)
    def _cycle_mode(event: KeyPressEvent) -> None:
        screen.cycle_mode()

    _add_view_keys(kb, screen, asking, busy)
    _add_picker_keys(kb, screen, picking, asking)
    return kb


def _add_view_keys(kb: KeyBindings, screen: KeyTarget, asking: Filter, busy: Filter) -> None:
    """Keys that show, recall or move work aside rather than edit the prompt."""

    @kb.add("c-o", filter=~asking)
    def _tools(event: KeyPressEvent) -> None:
        screen.show_tools()

    @kb.add("up", filter=Condition(lambda: screen.can_recall) & ~asking)
    def _recall(event: KeyPressEvent) -> None:
        screen.recall_queued()

    @kb.add("c-b", filter=busy & ~asking)
    def _to_background(event: KeyPressEvent) -> None:
        screen.to_background()

    # every position report, prompt-toolkit's own included: the screen's width probes are
    # answered on the same channel, in order (ui/screen/width_probe.py)
    @kb.add(Keys.CPRResponse, save_before=lambda e: False)
    def _cursor_report(event: KeyPressEvent) -> None:
        row, column = map(int, event.data[2:-1].split(";"))
        screen.on_cursor_report(row, column)

    @kb.add("f2")
    def _panel(event: KeyPressEvent) -> None:
        screen.cycle_panel()


def _add_picker_keys(kb: KeyBindings, screen: KeyTarget, picking: Filter, asking: Filter) -> None:
    """While a picker or a question is open, its keys and nothing else."""

    @kb.add("up", filter=picking)
    def _up(event: KeyPressEvent) -> None:
        screen.picker.move(-1)

    @kb.add("down", filter=picking)
    def _down(event: KeyPressEvent) -> None:
        screen.picker.move(1)

    @kb.add("enter", filter=picking)
    def _pick(event: KeyPressEvent) -> None:
        screen.picker.accept()

    @kb.add("escape", filter=picking, eager=True)
    def _cancel_pick(event: KeyPressEvent) -> None:
        screen.picker.done(None)

    @kb.add("<any>", filter=asking)  # a picker swallows other keys
    def _answer_key(event: KeyPressEvent) -> None:
        screen.answer_key(event.data.lower())
