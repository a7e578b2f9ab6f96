"""What a turn commits does not depend on where its reply's deltas were cut (issue 56): a
stream cut right after a newline inside a code block, after the opening fence, or between the
two newlines of a paragraph break commits the same lines as the reply in one piece."""

from __future__ import annotations

import random

from agent_cli.core.events import TextDelta, TurnEnd
from agent_cli.ui.turn import TurnView

REPLY = (
    "Here is the change:\n"
    "```python\n"
    "def f(x):\n"
    "    return x\n"
    "\n"
    "\n"
    "y = f(1)\n"
    "```\n"
    "\n"
    "- a list item\n"
    "- another\n"
    "\n\n"
    "~~~\n"
    "plain\n"
    "~~~\n"
    "\n"
    "The end."
)


def committed(pieces: list[str]) -> list[str]:
    view = TurnView(width=60, color=False)  # blocks are cut before they are rendered
    out = [line for piece in pieces for line in view.feed(TextDelta(text=piece))]
    return out + view.feed(TurnEnd(stop="done", text=REPLY, rounds=1))


def test_every_cut_of_the_reply_commits_the_same_lines():
    whole = committed([REPLY])
    assert len(whole) == 4  # the paragraph and its code, the list, the other code, the end
    marks = "\n`~"  # cut at each newline and fence mark, either side of it
    cuts = {at for at in range(1, len(REPLY)) if REPLY[at - 1] in marks or REPLY[at] in marks}
    for at in sorted(cuts):
        assert committed([REPLY[:at], REPLY[at:]]) == whole, repr(REPLY[:at])
    rng = random.Random(56)
    for _ in range(10):
        many = sorted(rng.sample(range(1, len(REPLY)), 12))
        pieces = [REPLY[a:b] for a, b in zip([0, *many], [*many, len(REPLY)], strict=True)]
        assert committed(pieces) == whole, pieces
