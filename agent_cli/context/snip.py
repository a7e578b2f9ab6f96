"""Step 2, snip: once the history has reached `snip_trigger` messages, keep the first message and
the newest ones, down to `snip_target`, and move the middle to an archive file named by one marker.

When (the product's reading of SPEC §8): a snip rewrites the cached prefix after the head, and a
cache write costs 1.25x input where a read costs 0.1x, so a due snip waits for a request that
rewrites anyway (micro-compaction or a summary due in the same pass, or a cache past its TTL) and
rides on it; alone it happens only at `snip_limit` messages, which bounds the count. The marker
goes after the cut, into the first kept user message, so the head stays as it was sent.
The cut never separates a tool_use from its tool_result: the kept tail always begins with an
assistant message, whose results follow it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_cli.context.ports import Compacted, StageContext
from agent_cli.context.state import (
    NOTICE_PREFIX,
    REQUEST_HEADING,
    ContextState,
    current_request,
    request_block,
    request_visible,
)
from agent_cli.core.messages import Block, Message, blocks_of

MARKER_PREFIX = NOTICE_PREFIX + "snipped: "
HEAD = 1  # the first message: the session's opening request (or the newest summary)


@dataclass(frozen=True)
class SnipPlan:
    """Keep messages[:head] and messages[tail:]; the rest goes to the archive."""

    head: int
    tail: int


def plan_snip(messages: list[Message], trigger: int, target: int) -> SnipPlan | None:
    """Pure decision: where to cut, or None below the trigger."""
    n = len(messages)
    if n < trigger or n == 0 or messages[0].get("role") != "user":
        return None
    tail = n - (target - HEAD)
    if tail < n and messages[tail].get("role") == "user":
        tail -= 1  # begin with the assistant message whose results follow: one more kept
    if tail <= HEAD:
        return None
    return SnipPlan(HEAD, tail)


def marker_text(removed: int, archive: Path) -> str:
    return (
        f"{MARKER_PREFIX}{removed} earlier messages were moved to {archive} (older parts of "
        "this session, if any, are in the numbered files beside it); open it with read_file "
        "if you need them.]"
    )


def snipped(messages: list[Message], plan: SnipPlan, archive: Path, request: str) -> list[Message]:
    """The new history: the head as it was, then the tail, whose first user message carries the
    marker after its tool results (they must come first); the head only when none follows."""
    head, tail = messages[: plan.head], list(messages[plan.tail :])
    notice: list[Block] = [{"type": "text", "text": marker_text(plan.tail - plan.head, archive)}]
    if not request_visible(request, [*head, *tail]):
        notice.append({"type": "text", "text": request_block(request)})
    at = next((i for i, m in enumerate(tail) if m.get("role") == "user"), None)
    if at is None:
        return [*marked_head(messages[0], notice), *head[1:], *tail]
    blocks = blocks_of(tail[at])
    results = next((i for i, b in enumerate(blocks) if b.get("type") != "tool_result"), len(blocks))
    tail[at] = {**tail[at], "content": blocks[:results] + notice + blocks[results:]}
    return [*head, *tail]


def marked_head(message: Message, notice: list[Block]) -> list[Message]:
    """The head with the marker (replacing an older one in it)."""
    blocks = without_marker(blocks_of(message)) or [{"type": "text", "text": "(start of session)"}]
    return [{**message, "content": blocks + notice}]


def without_marker(blocks: list[Block]) -> list[Block]:
    """Drop an earlier snip's marker and the request it carried."""
    out: list[Block] = []
    after_marker = False
    for block in blocks:
        text = str(block.get("text", "")) if block.get("type") == "text" else ""
        if text.startswith(MARKER_PREFIX):
            after_marker = True
            continue
        if after_marker and text.startswith(REQUEST_HEADING):
            continue
        after_marker = False
        out.append(block)
    return out


class Snip:
    name = "snip"

    def __init__(self, state: ContextState) -> None:
        self.state = state

    async def apply(self, messages: list[Message], ctx: StageContext) -> Compacted | None:
        state = self.state
        state.counter.calibrate(ctx, messages)
        limits = state.thresholds
        n = len(messages)
        if n < limits.snip_trigger or (n < limits.snip_limit and not self._rides(messages)):
            return None
        plan = plan_snip(messages, limits.snip_trigger, limits.snip_target)
        if plan is None:
            return None
        request = current_request(ctx.session.current_request, messages)
        archive = state.archive(messages[plan.head : plan.tail])
        out = snipped(messages, plan, archive, request)
        state.prefix_broken = True
        return Compacted(
            out,
            self.name,
            archive_path=str(archive),
            tokens_before=state.counter.estimate(messages),
            tokens_after=state.counter.estimate(out),
        )

    def _rides(self, messages: list[Message]) -> bool:
        """This request rewrites the cached messages anyway: the cache is cold, an earlier stage
        rewrote them, or micro-compaction is due (and a summary, whose threshold is higher)."""
        state = self.state
        due = state.counter.estimate(messages) > state.thresholds.micro_threshold
        return state.rewriting or due
