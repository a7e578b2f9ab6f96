"""`agent chat --max-cost USD` (issue 53): the chat's budget, as `agent run`'s; a bad value is
a usage error naming the flag (exit 2), never a traceback."""

from __future__ import annotations

import pytest

from agent_cli.cli.chat_start import parse_chat_args
from agent_cli.core.errors import UsageError


def test_max_cost_is_the_runs_budget(tmp_path):
    options = parse_chat_args(["--workspace", str(tmp_path), "--max-cost", "1.5"])
    assert options.max_cost_usd == 1.5
    assert parse_chat_args(["--workspace", str(tmp_path)]).max_cost_usd is None


@pytest.mark.parametrize(("value", "why"), [("abc", "not a number"), ("0", "more than 0")])
def test_a_bad_max_cost_names_the_flag(tmp_path, value: str, why: str):
    with pytest.raises(UsageError, match=f"--max-cost: .*{why}"):
        parse_chat_args(["--workspace", str(tmp_path), "--max-cost", value])
