"""What the background-job tests share: the real process table, and reading a job's id, pid and
output file back from the tool results the fake model received."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from agent_cli.core.tool_contract import AnyTool
from agent_cli.ext.jobs import BashKill, BashOutput
from agent_cli.ext.jobs.board import JobBoard
from agent_cli.ext.jobs.service import JobsService
from agent_cli.runtime.assembly import base_tools
from tests.sandbox_support import shell_wrapper


def board_tools(board: JobBoard) -> list[AnyTool]:
    """The base tools with bash's background jobs on `board`, and the job tools; bash confines
    its commands as a run's does (the sandbox extension's wrapper)."""
    jobs = JobsService.over(board)
    return [*base_tools(lambda: jobs, shell_wrapper), BashOutput(jobs), BashKill(jobs)]


def group_members(pgid: int) -> list[int]:
    """Live processes whose process group is `pgid` (zombies count as gone), from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def results(body: dict[str, Any]) -> list[str]:
    """Every tool_result text of a request, oldest first."""
    found = []
    for message in body["messages"]:
        if message["role"] != "user" or isinstance(message["content"], str):
            continue
        for block in message["content"]:
            if block.get("type") == "tool_result":
                content = block["content"]
                found.append(content if isinstance(content, str) else content[0]["text"])
    return found


def job_pid(text: str) -> int:
    found = re.search(r"\(pid (\d+)\)", text)
    assert found, f"no pid in {text!r}"
    return int(found.group(1))


def job_output(text: str) -> Path:
    found = re.search(r"its output goes to (\S+?)\. ", text)
    assert found, f"no output file in {text!r}"
    return Path(found.group(1))


def wait_for_text(path: Path, pattern: str, timeout: float = 10) -> re.Match[str]:
    """Polls the file until `pattern` matches in it (the fake model's thread waits on a job)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = path.read_text(errors="replace") if path.exists() else ""
        if found := re.search(pattern, text):
            return found
        time.sleep(0.02)
    raise AssertionError(f"{pattern!r} never appeared in {path}")
