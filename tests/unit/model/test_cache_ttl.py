"""`cache_ttl` (issue 53): the TTL reaches each breakpoint of the request the fake server records,
for the main agent and subagents separately; a 1h write is priced 2x base input, 5m 1.25x; the
default run's requests are unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.settings.schema import Price, Settings
from agent_cli.model.usage import Usage
from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import system_contains
from tests.in_process import run_cli

SUBAGENT = system_contains("You are a subagent")


def controls(body: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "cache_control" in value:
                found.append(value["cache_control"])
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk({k: body.get(k) for k in ("tools", "system", "messages")})
    return found


def run_with_subagent(fake: FakeAnthropic, env: dict[str, str], ws: Path, ttl: Any) -> None:
    if ttl is not None:
        (ws / ".agent").mkdir(exist_ok=True)
        (ws / ".agent" / "settings.json").write_text(json.dumps({"cache_ttl": ttl}))
    fake.script.tool_use("task", description="look", prompt="Look around.")
    fake.script.text("done")
    fake.route(SUBAGENT).tool_use("submit_note", conclusion="nothing here", confidence="high")
    proc = run_cli(env, ws, "run", "-p", "go")
    assert proc.returncode == 0, proc.stderr


def test_main_and_subagent_ttls_reach_their_own_requests(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    run_with_subagent(fake_model, fake_env, tmp_path, {"main": "1h", "subagents": "5m"})
    bodies = fake_model.bodies()
    main = [b for b in bodies if not SUBAGENT(b)]
    subs = [b for b in bodies if SUBAGENT(b)]
    assert main
    assert subs
    for body in main:
        assert controls(body)
        assert all(c == {"type": "ephemeral", "ttl": "1h"} for c in controls(body))
    for body in subs:
        assert controls(body)
        assert all(c == {"type": "ephemeral"} for c in controls(body))
    assert not fake_model.violations


def test_one_string_sets_both_and_the_default_sends_no_ttl(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    assert Settings(cache_ttl="1h").cache_ttl.subagents == "1h"
    run_with_subagent(fake_model, fake_env, tmp_path, None)
    assert all(c == {"type": "ephemeral"} for b in fake_model.bodies() for c in controls(b))


def test_a_bad_ttl_is_refused_naming_the_key(fake_env: dict[str, str], tmp_path: Path):
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "settings.json").write_text(json.dumps({"cache_ttl": {"main": "2h"}}))
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go")
    assert proc.returncode == 2
    assert "cache_ttl.main" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_hour_write_costs_twice_base_input_five_minutes_one_and_a_quarter():
    price = Price(input=3.0, output=15.0, cache_read=0.30, cache_write=3.75)
    five = Usage(cache_creation_input_tokens=1_000_000)
    hour = Usage(cache_creation_input_tokens=1_000_000, cache_creation_1h_input_tokens=1_000_000)
    assert five.cost(price) == pytest.approx(3.75)
    assert hour.cost(price) == pytest.approx(6.0)
    mixed = five + Usage(cache_creation_input_tokens=10, cache_creation_1h_input_tokens=10)
    assert mixed.cache_creation_1h_input_tokens == 10


def test_an_hour_writes_are_priced_as_such_in_the_recorded_usage(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "settings.json").write_text(json.dumps({"cache_ttl": "1h"}))
    fake_model.script.text("hi")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    usage = result["usage"]
    written = usage["cache_creation_input_tokens"]
    assert written > 0
    assert usage["cache_creation_1h_input_tokens"] == written
