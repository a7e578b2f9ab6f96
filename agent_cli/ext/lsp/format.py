"""`lsp.format_on_edit`: the formatter configured for a file's extension, run on it in place
after an edit; the result says what it changed (the model's next edit matches the new text).
It runs outside the sandbox: through the gate, by the absolute path `resolve` finds."""

from __future__ import annotations

import asyncio
import difflib
import logging
from pathlib import Path

from agent_cli.core.outside import spawn
from agent_cli.core.text.counts import counted
from agent_cli.ext.lsp.server import resolve

log = logging.getLogger(__name__)

FORMAT_TIMEOUT_S = 20


async def run_formatter(
    formatters: dict[str, list[str]], path: Path, workspace: Path, trusted: bool = False
) -> str:
    """`trusted`: the workspace is, so a formatter that is one of its files may run."""
    command = formatters.get(path.suffix)
    if not command:
        return ""
    argv = [part.replace("{file}", str(path)) for part in command]
    if argv == command:
        argv.append(str(path))
    before = path.read_text(encoding="utf-8", errors="replace")
    try:
        process = await spawn.start(
            resolve(argv, workspace, workspace, trusted),
            cwd=workspace,
            stdin=spawn.DEVNULL,
            stdout=spawn.DEVNULL,
            stderr=spawn.PIPE,
            start_new_session=True,
        )
        _, err = await asyncio.wait_for(process.communicate(), FORMAT_TIMEOUT_S)
    except (OSError, TimeoutError) as e:  # NotRunnable is an OSError
        log.warning("formatter %s failed: %s", argv[0], e)
        return f"\n\nThe formatter `{argv[0]}` did not run: {e}."
    if process.returncode:
        tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        return f"\n\nThe formatter `{argv[0]}` failed (exit {process.returncode}): {tail[0][:200]}"
    after = path.read_text(encoding="utf-8", errors="replace")
    if after == before:
        return ""
    changed = sum(
        1
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="")
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    )
    lines = counted(changed, "line")
    return f"\n\n`{argv[0]}` formatted the file: {lines} changed (read it before editing)."
