"""History on resume: the restored conversation drawn into scrollback as it was shown live.

User prompts, replies (markdown), one line per tool call, and one line where a compaction
replaced what came before. Tool results are not redrawn: the call's line stands for them.
"""

from __future__ import annotations

from typing import Any

from agent_cli.core.messages import blocks_of
from agent_cli.session.resume import Boundary, Restored
from agent_cli.ui.render import render


def _user(message: dict[str, Any], width: int, color: bool) -> list[str]:
    texts = [str(b["text"]) for b in blocks_of(message) if b.get("type") == "text"]
    return [render.user_line(text, width, color) for text in texts if text.strip()]


def _assistant(message: dict[str, Any], width: int, color: bool) -> list[str]:
    out = []
    for block in blocks_of(message):
        kind = block.get("type")
        if kind == "text" and str(block["text"]).strip():
            out.append(render.markdown(str(block["text"]), width, color) + "\n")
        elif kind == "tool_use":
            label = render.tool_label(str(block.get("name")), dict(block.get("input") or {}))
            out.append(render.info_line(f"· {label}", width, color))
    return out


def history_lines(restored: Restored, width: int, color: bool) -> list[str]:
    """What scrollback shows of a resumed session, oldest first."""
    out = [render.info_line(f"── session {restored.id} · {restored.started[:16]} ──", width, color)]
    for item in restored.conversation():
        if isinstance(item, Boundary):
            out.append(
                render.info_line(
                    f"⇣ compacted ({item.stage}): {item.replaced} earlier messages summarised",
                    width,
                    color,
                )
            )
        elif item["role"] == "user":
            out += _user(item, width, color)
        else:
            out += _assistant(item, width, color)
    return out
