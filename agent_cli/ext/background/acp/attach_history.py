"""The history an attached chat screen draws: the session's transcript up to where the client
joined, drawn as `agent chat --resume` draws it. The session draws it for a client that sends
its terminal's width and colour in initialize's `_meta` (`agent/draw`): it has the modules
imported already, so `agent attach` writes the history before it imports any of them; a
client that sends none (or a session that could not draw) draws it itself."""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_cli.core.events import Event

DRAW = "agent/draw"  # initialize's `_meta` key: {"width", "color", "joined"}
log = logging.getLogger(__name__)


def history(
    meta: dict[str, Any], width: int, color: bool, calls: Callable[[Event], None], running: set[str]
) -> list[str]:
    """The transcript's first `size` bytes (its whole lines) drawn as a resumed chat draws it;
    the `running` calls are drawn live (their starts follow)."""
    from agent_cli.session.boundary import LineReader
    from agent_cli.session.resume import RestoredSession
    from agent_cli.session.transcript import SessionRecord
    from agent_cli.ui.render.history import history_lines

    path, size = Path(str(meta.get("transcript") or "")), int(meta.get("size") or 0)
    if not size:
        return []
    with path.open("rb") as f:
        head = f.read(size)
    with tempfile.TemporaryDirectory(prefix="agent-attach-") as folder:
        copy = Path(folder) / path.name  # the id is the file's name
        copy.write_bytes(head[: head.rfind(b"\n") + 1])
        first = LineReader(copy).record_at(0)
        started = first.started if isinstance(first, SessionRecord) else ""
        restored = RestoredSession(id=path.stem, path=copy, started=started)
        return history_lines(restored, width, color, calls, running)


def joined_line(text: str, width: int, color: bool) -> str:
    from agent_cli.ui.render import render

    return render.info_line(text, width, color)


def wanted(meta: object) -> dict[str, Any] | None:
    """What a client asked the session to draw for it (initialize's `_meta`), if anything."""
    draw = meta.get(DRAW) if isinstance(meta, dict) else None
    if not isinstance(draw, dict) or not isinstance(draw.get("width"), int):
        return None
    return {"width": max(20, min(int(draw["width"]), 1000)), "color": bool(draw.get("color")),
            "joined": str(draw.get("joined") or "")}  # fmt: skip


def drawn(meta: dict[str, Any], draw: dict[str, Any], running: Iterable[str]) -> list[str] | None:
    """The lines the client writes as they are (None: it draws them itself)."""
    width, color = draw["width"], draw["color"]
    try:
        lines = history(meta, width, color, lambda event: None, set(running))
    except Exception as e:  # the client draws it then, as it would for an older session
        log.warning("the history could not be drawn for an attached client: %s", e)
        return None
    return [*lines, joined_line(draw["joined"], width, color)] if draw["joined"] else lines
