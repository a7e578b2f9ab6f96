"""What a session costs, in the real `agent chat` at 80x24 (issue 53): with `--max-cost 1` the
panel's meter and the status bar show the budget from the start (spent/limit), then what a turn
spent; `/cost` shows its table per agent whole; the status line's command reads the hit ratio,
the cost and the budget from its JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

from agent_cli.core.settings.schema import Settings
from agent_cli.model.usage import Usage
from agent_cli.ui.render.render import tokens
from tests.e2e.pty_screen import ChatTerm
from tests.e2e.test_chat_steering_pty import user_settings
from tests.e2e.test_status_line_pty import bar, script
from tests.fake_model import FakeAnthropic

SPENT = {"input_tokens": 100_000, "output_tokens": 2_000}  # the cache's figures: the server's
HEADER = re.compile(r"agent +calls +input +read +write +output +hit +cost")
METER = re.compile(r"budget ███░░░░░░░ \$0\.3\d/\$1\.00")


def served(fake_model: FakeAnthropic) -> tuple[Usage, float]:
    """The server's own figures of its one reply, and their cost at the chat's model's price."""
    (usage,) = fake_model.served_usage
    figures = Usage.model_validate(usage)
    settings = Settings()
    price = settings.prices.get(settings.model)
    assert price is not None
    return figures, figures.cost(price) or 0.0


SAVE_STDIN = """
import json, pathlib, sys
data = json.load(sys.stdin)
pathlib.Path(sys.argv[1]).write_text(json.dumps(data))
print("mine")
"""


def test_the_budget_meter_and_cost_at_80_columns(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("Spent some.", usage=SPENT)
    term = ChatTerm(fake_env, tmp_path, "--max-cost", "1", columns=80, lines=24)
    try:
        term.wait_for(lambda t: "budget ░░░░░░░░░░ $0.00/$1.00" in t)  # seen before it is spent
        assert "$0.00/$1.00" in bar(term)
        term.type("spend")
        term.wait_for(lambda t: METER.search(t) is not None)
        usage, spent = served(fake_model)
        assert f"${spent:.2f}/$1.00" in bar(term)
        term.type("/cost")
        screen = term.wait_for(lambda t: HEADER.search(t) is not None)
    finally:
        term.close()
    row = next(line for line in screen.splitlines() if line.startswith("main "))
    hit = f"{100 * usage.cache_read_input_tokens / usage.context_tokens:.0f}%"
    assert row.split() == ["main", "1", "100k", tokens(usage.cache_read_input_tokens),
                           tokens(usage.cache_creation_input_tokens), "2k", hit,
                           f"${spent:.4f}"]  # fmt: skip
    assert METER.search(screen.split(row)[1]), screen  # /cost's own meter, under its table


def test_the_status_lines_json_has_the_hit_ratio_cost_and_budget(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    seen = tmp_path / "stdin.json"
    command = script(tmp_path, "save.py", SAVE_STDIN, str(seen))
    user_settings(fake_env, {"status_line": {"command": command, "refresh_s": 600}})
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_model.script.text("Spent some.", usage=SPENT)
    term = ChatTerm(fake_env, workspace, "--max-cost", "1", columns=80, lines=24)
    try:
        term.wait_for(lambda _: "mine" in bar(term))
        term.type("spend")
        term.wait_for("Spent some.")
        term.wait_for(lambda _: seen.exists() and '"budget"' in seen.read_text())
        term.wait_for(lambda _: '"cost_usd": 0.3' in seen.read_text())  # run after the turn
    finally:
        term.close()
    agent = json.loads(seen.read_text())["agent"]
    usage, spent = served(fake_model)
    read, write = usage.cache_read_input_tokens, usage.cache_creation_input_tokens
    assert agent["cache"]["read_tokens"] == read  # the server's own sums, exactly
    assert agent["cache"]["write_tokens"] == write
    assert agent["cache"]["hit_ratio"] == round(read / usage.context_tokens, 4)
    assert agent["cost_usd"] == round(spent, 6)
    assert agent["budget"] == {"max_cost_usd": 1.0, "used_percentage": round(100 * spent, 1)}
