"""Running the real `agent` CLI in a subprocess against the fake model server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from agent_cli.core.payloads import Note

REPO = Path(__file__).resolve().parents[2]


def run_agent(
    env: dict[str, str],
    workspace: Path,
    *args: str,
    stdin: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    env = {**env, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "agent_cli", *args],
        cwd=workspace,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def last_user_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    content = body["messages"][-1]["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def all_text(path: Path) -> str:
    """Every file under `path` concatenated (for secret scans)."""
    if not path.exists():
        return ""
    return "\n".join(
        p.read_text(encoding="utf-8", errors="replace") for p in path.rglob("*") if p.is_file()
    )


def make_note(**fields: Any) -> Note:
    """A stored note as the runner makes it; the fields a test cares about are given."""
    base: dict[str, Any] = {
        "id": "n-0001",
        "session_id": "s-1",
        "description": "look",
        "task": "Look into it.",
        "status": "completed",
        "conclusion": "It works.",
        "confidence": "high",
        "log_path": "notes/n-0001.log",
    }
    return Note.model_validate({**base, **fields})
