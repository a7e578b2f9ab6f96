"""`agent run --bg`: the session's name chosen and its record written, then its process started
detached (child.py): a session of its own, no terminal, stdin /dev/null, output to its log;
forked from the warm process when one serves (cli/warm/detached.py), else spawned.
The port "background" (cli/commands/background.py's Detacher) answers with this."""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from pathlib import Path
from typing import Any

import agent_cli
from agent_cli.core.errors import UsageError
from agent_cli.core.options import Options
from agent_cli.ext.background import mail, names, registry

CHILD = "agent_cli.ext.background.child"


def spec_of(
    options: Options, prompt: str, worktree: str | None = None, base: str | None = None
) -> dict[str, Any]:
    """What the session's process runs: the Options as JSON (child.options_of reads them),
    and the worktree it enters (`""`: one of the session's name) from `base`."""
    fields = dataclasses.asdict(options)
    for field in ("workspace", "state_dir"):
        fields[field] = None if fields[field] is None else str(fields[field])
    fields["add_dirs"] = [str(p) for p in options.add_dirs]
    return {"options": fields, "prompt": prompt, "worktree": worktree, "base": base}


def reserve(options: Options, spec: dict[str, Any], name: str | None) -> tuple[Path, str]:
    """The session's record, under a name nobody in its workspace has (the folder's lock
    held, so two launchers never take the same one), and the session that started it, if a
    session did."""
    from agent_cli.ext.background.answering import socket_path

    workspace, parent = str(options.workspace), mail.sender()  # a session's bash, or its tool
    folder = registry.folder()
    with registry.locked(folder / ".lock"):
        taken = {r.name: r for r in registry.records() if r.data.get("workspace") == workspace}
        if name is not None and names.checked(name) in taken:
            state = taken[name].state
            raise UsageError(f"--name: {name} is taken here ({state}); agent rm {name} forgets it")
        chosen = name or names.unique(names.from_prompt(spec["prompt"]), taken)
        path = folder / f"{registry.key(options.workspace, chosen)}.json"
        registry.update(
            path,
            name=chosen,
            workspace=workspace,
            state="working",
            created=time.time(),
            turns=0,
            cost_usd=None,
            last="starting",
            log=str(path.with_suffix(".log")),
            socket=socket_path(path),
            spec=spec,
            parent=None if parent is None else str(parent.path),  # its answers go there
        )
    return path, chosen


def start(path: Path, workspace: Path) -> int:
    """The session's process, detached: a fork of the warm process when one serves this
    launcher (its imported pages shared: warm/detached.py), else spawned; its pid."""
    from agent_cli.cli.warm.detached import fork_detached

    env = dict(os.environ)  # its own: the model's credentials too
    env.pop(mail.ENV, None)  # the session that started it is in its record (`parent`)
    package_root = str(Path(agent_cli.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    log = os.open(path.with_suffix(".log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    nothing = os.open(os.devnull, os.O_RDONLY)
    try:
        pid = fork_detached(CHILD, [str(path)], str(workspace), env, [nothing, log, log])
        if pid is None:
            pid = spawned(path, workspace, env, log)
    finally:
        os.close(log)
        os.close(nothing)
    registry.update(path, pid=pid, process_start=registry.process_start(pid))
    return pid


def spawned(path: Path, workspace: Path, env: dict[str, str], log: int) -> int:
    from agent_cli.core.outside import spawn

    proc = spawn.popen(
        [sys.executable, "-m", CHILD, str(path)],
        env=env,
        cwd=workspace,
        stdin=spawn.DEVNULL,
        stdout=log,
        stderr=spawn.STDOUT,
        start_new_session=True,  # no terminal: its SIGHUP and Ctrl-C are not this one's
    )
    return proc.pid


class Launcher:
    """The port "background": `agent run --bg`'s work."""

    def detach(
        self,
        options: Options,
        prompt: str,
        name: str | None,
        worktree: str | None,
        base: str | None,
    ) -> tuple[str, list[str]]:
        path, chosen = reserve(options, spec_of(options, prompt, worktree, base), name)
        pid = start(path, options.workspace)
        looks = [
            ("agent ps", "its state, and every other session's"),
            (f"agent logs {chosen} -f", "what it does"),
            (f"agent stop {chosen}", "end it (agent run --continue here goes on with it)"),
        ]
        width = max(len(command) for command, _ in looks)
        lines = [f"  {command.ljust(width)}  {what}" for command, what in looks]
        return chosen, [
            f"{chosen} works in the background (pid {pid}); it asks, not denies:",
            *lines,
        ]
