"""`/think [on|off|TOKENS]`: extended thinking for the turns that follow."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_cli.core.errors import UsageError
from agent_cli.core.settings.thinking import MIN_THINKING_BUDGET

if TYPE_CHECKING:
    from agent_cli.ui.slash.host import Host

HELP = {"/think [on|off|N]": "extended thinking from the next turn on (N: its budget in tokens)"}
DEFAULT_BUDGET = 8_000


def think_command(host: Host, arg: str) -> None:
    runtime = host.runtime
    word = arg.strip().lower().replace(",", "").replace("_", "")
    if not word:
        budget = runtime.settings.thinking.budget_tokens
        state = f"on, {budget:,} tokens" if budget else "off"
        host.say(f"Thinking: {state} (/think on, /think off, /think 16000)")
        return
    runtime.tuning.set_thinking(_budget(word, runtime.settings.max_tokens))
    budget = runtime.settings.thinking.budget_tokens
    host.say(f"Thinking {'on, ' + format(budget, ',') + ' tokens' if budget else 'off'} "
             "from the next turn on.")  # fmt: skip


def _budget(word: str, max_tokens: int) -> int | None:
    if word == "off":
        return None
    if word == "on":
        return max(MIN_THINKING_BUDGET, min(DEFAULT_BUDGET, max_tokens // 2))
    if word.isdigit():
        return int(word)
    raise UsageError(f"/think {word}: say on, off or a number of tokens.")
