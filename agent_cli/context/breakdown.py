"""Where the context goes: the next request's tokens by category, counted as the pipeline counts
them (the same raw estimate, times the ratio learned from the API's count of the last request),
so the categories add up to the figure compaction acts on.

The estimate's stated error: once calibrated, only what was added since the last request is
guessed, so ±5 %; before the first request the raw heuristic stands alone, ±30 %.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from agent_cli.context.ports import StageContext
from agent_cli.context.state import ContextState
from agent_cli.context.tokens import PER_MESSAGE, held_tokens, text_tokens, value_tokens
from agent_cli.core.history import SameItems
from agent_cli.core.messages import Block, Message, blocks_of

CALIBRATED_ERROR = 0.05
RAW_ERROR = 0.30
LABELS = {
    "system_prompt": "System prompt",
    "tool_definitions": "Tool definitions",
    "mcp_tools": "MCP tools",
    "skills_and_instructions": "Skills and instructions",
    "messages": "Messages",
    "tool_results": "Tool results",
}


class ContextBreakdown(BaseModel):
    """The next request's context by category (`agent run`'s "context", `/context`)."""

    model: str
    window: int = Field(description="The model's context window, in tokens.")
    used: int = Field(description="Tokens the next request carries: the categories' sum.")
    free: int = Field(description="The window less `used` (never below 0).")
    compact_at: int = Field(description="Tokens past which the summary (compaction) starts.")
    estimate_error: float = Field(description="The estimate's stated error, a share of `used`.")
    calibrated: bool = Field(description="Scaled by the API's count of an earlier request.")
    categories: dict[str, int] = Field(description="Tokens per category, in LABELS' order.")

    def share(self, tokens: int) -> float:
        return tokens / self.window if self.window else 0.0


@dataclass
class ContextMeter:
    """What a session's requests carry beside the history: the system prompt (with the part
    that project files give), and the tools, MCP ones told apart from the fixed set."""

    state: ContextState
    system: list[Block]
    project_sections: list[str]  # AGENTS.md / CLAUDE.md and the skills listing, in `system`
    schemas: Callable[[], list[dict[str, object]]]
    fixed_tools: frozenset[str]  # names of the tools always offered (server tools too)
    _system_tokens: SameItems[int] = field(default_factory=held_tokens, repr=False)
    _tool_tokens: SameItems[int] = field(default_factory=held_tokens, repr=False)

    def overhead(self) -> int:
        """Raw tokens of the system prompt and every tool offered now."""
        return self._system_tokens.of(self.system) + self._tool_tokens.of(self.schemas())

    def measure(
        self, model: str, window: int, messages: list[Message], ctx: StageContext
    ) -> ContextBreakdown:
        counter = self.state.counter
        counter.overhead = self.overhead()
        counter.calibrate(ctx, messages)  # the last request's count, if not learned yet
        raw = self._raw(messages)
        scaled = {key: counter.scaled(tokens) for key, tokens in raw.items()}
        used = sum(scaled.values())
        return ContextBreakdown(
            model=model,
            window=window,
            used=used,
            free=max(0, window - used),
            compact_at=self.state.thresholds.summary_threshold,
            estimate_error=CALIBRATED_ERROR if counter.learned else RAW_ERROR,
            calibrated=counter.learned,
            categories=scaled,
        )

    def _raw(self, messages: list[Message]) -> dict[str, int]:
        system = value_tokens(self.system)
        project = min(system, sum(text_tokens(s) for s in self.project_sections if s.strip()))
        schemas = self.schemas()
        mcp = [s for s in schemas if s.get("name") not in self.fixed_tools]
        tools = value_tokens(schemas)
        mcp_tokens = min(tools, value_tokens(mcp)) if mcp else 0
        results, everything = tool_result_tokens(messages), history_tokens(messages)
        return {
            "system_prompt": system - project,
            "tool_definitions": tools - mcp_tokens,
            "mcp_tools": mcp_tokens,
            "skills_and_instructions": project,
            "messages": everything - results,
            "tool_results": results,
        }


def history_tokens(messages: list[Message]) -> int:
    return sum(value_tokens(m.get("content")) + PER_MESSAGE for m in messages)


def tool_result_tokens(messages: list[Message]) -> int:
    return sum(
        value_tokens(block)
        for m in messages
        for block in blocks_of(m)
        if block.get("type") == "tool_result"
    )


def metered(
    state: ContextState,
    system: list[Block],
    project_sections: list[str],
    schemas: Callable[[], list[dict[str, object]]],
    fixed_schemas: list[dict[str, object]],
) -> ContextMeter:
    """The session's meter; from now on every request's estimate counts the tools offered then
    (MCP servers come and go), not those of the first request. `fixed_schemas`: the tools
    always offered; the rest are MCP servers'."""
    fixed = frozenset(str(s.get("name")) for s in fixed_schemas)
    meter = ContextMeter(state, system, project_sections, schemas, fixed)
    state.overhead_of = meter.overhead
    return meter
