"""The input box's rows: the text's own, up to a quarter of the screen, and the count above it
when the text is taller than that (a 30-line paste shows only its last rows: the count says the
rest is there). prompt_toolkit's Buffer only: the screen is drawn before anything heavy."""

from __future__ import annotations

from prompt_toolkit.buffer import Buffer

from agent_cli.core.text.counts import counted


def text_rows(buffer: Buffer, width: int) -> int:
    """Rows the whole text takes, wrapped at `width`."""
    width = max(width, 1)
    return sum(1 + len(line) // width for line in buffer.document.lines)


def input_rows(buffer: Buffer, width: int, screen_rows: int) -> int:
    """The input's height: the text's rows, up to a quarter of the screen (a long text scrolls
    inside); room below the cursor for the completion menu while it is open."""
    rows = text_rows(buffer, width)
    cap = max(screen_rows // 4, 1)
    if buffer.complete_state:
        return min(max(rows, 9), max(cap, screen_rows // 3))
    return min(rows, cap)


def count_line(buffer: Buffer, width: int, screen_rows: int) -> str:
    """`[30 lines, 24 out of view · ↑↓ scroll]` when the text does not fit; "" when it does."""
    hidden = text_rows(buffer, width) - input_rows(buffer, width, screen_rows)
    if hidden <= 0:
        return ""
    return f"[{counted(buffer.document.line_count, 'line')}, {hidden} out of view · ↑↓ scroll]"
