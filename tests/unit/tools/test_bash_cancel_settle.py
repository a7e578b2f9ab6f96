"""A confined command stopped mid-way (Esc, a cancelled turn) is settled once it has ended, as
one that ran to its end is: what it planted where git looks for programs is moved aside."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from agent_cli.core.settings.schema import Settings
from agent_cli.tools.shell.bash import Bash, BashInput
from tests.sandbox_support import sandbox_workspace, shell_wrapper
from tests.unit.tool_helpers import make_ctx
from tests.waiting import until


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_a_stopped_command_is_settled(tmp_path: Path) -> None:
    ws = sandbox_workspace(tmp_path)
    settings = Settings.model_validate({"sandbox": {"mode": "required"}})
    ctx = make_ctx(ws, settings)
    planted = ws / ".git" / "commondir"
    command = "echo ../evil > .git/commondir; sleep 30"

    async def stop_it() -> None:
        task = asyncio.ensure_future(
            Bash(shell_wrapper=shell_wrapper).run(BashInput(command=command), ctx)
        )
        await until(planted.exists, 20, "the command planted its commondir")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await until(lambda: not planted.exists(), 10, "the planted file moved aside")

    asyncio.run(stop_it())
    assert (ws / ".git" / "commondir.sandbox-rejected").read_text() == "../evil\n"
