"""`agent chat` (the plain REPL, stdin not a TTY) with an MCP server: a server prompt as a
slash command, `/mcp`, and `@server:uri` resources.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.mcp_support import stdio_spec
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli


def test_prompt_command_status_and_resource(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    config = Path(fake_env["HOME"]) / ".config" / "agent" / "mcp.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"mcpServers": {"testsrv": stdio_spec()}}))
    fake_model.script.text("three risks").text("summarised")
    lines = [
        "/mcp__testsrv__review the parser",
        "/mcp",
        "/mcp__testsrv__nothing",
        "summarise @testsrv:docs://readme please",
    ]
    proc = run_cli(fake_env, tmp_path, "chat", stdin="\n".join(lines) + "\n")
    assert proc.returncode == 0, proc.stderr
    first, second = fake_model.bodies()
    assert first["messages"][-1]["content"][0]["text"] == (
        "Please review the parser carefully and list three risks."
    )
    assert "testsrv  ready" in proc.stdout
    assert "prompts: /mcp__testsrv__review" in proc.stdout
    assert "Unknown command /mcp__testsrv__nothing" in proc.stdout
    sent = second["messages"][-1]["content"][0]["text"]
    assert sent.startswith("summarise @testsrv:docs://readme please\n\n")
    assert '<resource server="testsrv" uri="docs://readme">' in sent
    assert "it explains nothing, on purpose" in sent
