"""Row arithmetic of the chat screen's bottom region (standard library only: the screen is drawn
before anything heavy is imported)."""

from __future__ import annotations

from agent_cli.ui.render.escapes import without_osc
from agent_cli.ui.screen.contract import Controller

FOLD_BELOW = 100  # same rule as side_panel.FOLD_BELOW (not imported: that module is heavy)


def packed(parts: list[str], width: int, sep: str) -> list[str]:
    """`parts` joined by `sep` into as few lines of at most `width` as they go in whole; a
    part longer than a line alone is cut (`…`). The panel never cuts a figure in two."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + len(sep) + len(part) <= width:
            lines[-1] += sep + part
        else:
            lines.append(part if len(part) <= width else part[: max(width - 1, 1)] + "…")
    return lines


def one_line(parts: list[str], width: int, sep: str) -> str:
    """As many of `parts` as fit whole on one line, in order (one that does not fit is left
    out, a later shorter one may still go in); the first is cut if it alone is too long."""
    line = ""
    for part in parts:
        if not line:
            line = part if len(part) <= width else part[: max(width - 1, 1)] + "…"
        elif len(line) + len(sep) + len(part) <= width:
            line += sep + part
    return line


def side_width(columns: int) -> int:
    """The panel's width beside the reply (from 100 columns up)."""
    return 40 if columns >= 140 else 34


def count_rows(text: str) -> int:
    return text.count("\n") + 1 if text else 0


def tail_rows(text: str, rows: int) -> str:
    """The last `rows` lines of `text`."""
    if rows < 1:
        return ""
    return "\n".join(text.split("\n")[-rows:]) if text else ""


def lay_out(
    controller: Controller | None, columns: int, rows: int, reserved: int, mode: str
) -> tuple[str, str]:
    """The live tail and the panel of a frame, beside `reserved` rows (input, question, picker).

    The region must stay shorter than the screen, or the terminal scrolls part of it into
    scrollback where it can no longer be erased; it takes at most half of it, so that the
    reply committed above it stays in view. The input and status rows come first, then the
    reply's tail keeps a third of the screen's rows, and the panel collapses into what is
    left. Both without OSC sequences: prompt_toolkit would draw them as text.
    """
    body = rows // 2 - 1 - reserved  # 1: the status row
    if controller is None or body < 1:
        return "", ""
    if columns >= FOLD_BELOW:
        panel = without_osc(controller.panel(columns, body, mode))
        width = columns - side_width(columns) - 2 if panel else columns
        return tail_rows(without_osc(controller.live(width)), body), panel
    live = without_osc(controller.live(columns))
    keep = min(count_rows(live), max(rows // 3, 1))
    panel = without_osc(controller.panel(columns, body - keep, mode))
    return tail_rows(live, body - count_rows(panel)), panel
