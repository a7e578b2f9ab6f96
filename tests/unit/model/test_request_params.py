from __future__ import annotations

import json
from typing import Any

from agent_cli.core.messages import validate_request
from agent_cli.model.client import ModelRequest
from agent_cli.model.wire_params import build_params


def test_breakpoints_on_system_tools_and_newest_stored_block_not_on_guidance():
    stored: list[dict[str, Any]] = [
        {"role": "user", "content": "question"},
        {"role": "assistant", "content": [{"type": "text", "text": "a"}]},
        {"role": "user", "content": [{"type": "text", "text": "follow-up"}]},
    ]
    snapshot = json.dumps(stored)
    request = ModelRequest(
        model="m",
        system=[{"type": "text", "text": "sys"}],
        messages=stored,
        tools=[{"name": "t", "description": "d", "input_schema": {"type": "object"}}],
        guidance=[{"type": "text", "text": "<system-reminder>x</system-reminder>"}],
    )
    params = build_params(request)
    assert params["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert params["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    last = params["messages"][-1]["content"]
    assert last[0] == {"type": "text", "text": "follow-up", "cache_control": {"type": "ephemeral"}}
    assert last[1] == {"type": "text", "text": "<system-reminder>x</system-reminder>"}
    assert json.dumps(params).count("cache_control") == 3
    assert json.dumps(stored) == snapshot  # the stored history is never mutated
    assert validate_request(params) == []
