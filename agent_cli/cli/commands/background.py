"""`agent run --bg [--name NAME]`: the session runs detached from the terminal and this command
only starts it, prints its name (stdout) and how to look at it (stderr), and exits. The
background extension does the work, through the port "background" (the Protocol below);
`agent ps`, `logs`, `stop` and `rm` are its commands."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any, Protocol, runtime_checkable

from agent_cli.core.errors import UsageError
from agent_cli.core.options import Options

FLAG = "--bg"
PORT = "background"
NOT_YET = {  # run's parameter -> its flag: what a background session does not take (yet)
    "json_schema": "--json-schema",
    "wait_jobs": "--wait-jobs",
}


@runtime_checkable
class Detacher(Protocol):
    def detach(
        self,
        options: Options,
        prompt: str,
        name: str | None,
        worktree: str | None,
        base: str | None,
    ) -> tuple[str, list[str]]:
        """Start the session detached: its name, and the lines that say how to look at it.
        UsageError (exit 2) on a bad or taken `name`. `worktree`: the agent worktree it works
        in, entered by the session ("": one of its own name), made from `base`."""
        ...


def detach(params: dict[str, Any], options: Options, prompt: str, name: str | None) -> None:
    """`agent run`'s hand-off when `--bg` (or `--name`) is given: `params` are its parsed
    parameters, checked for what a background session cannot take."""
    if not params.get("background"):
        raise UsageError("--name names a background session: give --bg too")
    for parameter, flag in NOT_YET.items():
        if params.get(parameter) not in (None, False):  # a bare --worktree is ""
            raise UsageError(f"{flag} cannot be used with {FLAG} (not yet)")
    if params.get("output_format", "text") != "text" or params.get("input_format") != "text":
        raise UsageError(f"{FLAG} takes text formats only: it prints the session's name")
    worktree, base = params.get("worktree"), params.get("base")
    if base is not None and worktree is None:
        raise UsageError("--base needs --worktree")
    detacher = _port(options)
    chosen, lines = detacher.detach(replace(options, one_shot=True), prompt, name, worktree, base)
    sys.stdout.write(chosen + "\n")
    if not options.quiet:
        sys.stderr.write(
            "".join(f"agent: {line}\n" if n == 0 else f"{line}\n" for n, line in enumerate(lines))
        )


def _port(options: Options) -> Detacher:
    """The port, from the built-in extension that provides it (settings not read: it only
    records and starts; the session reads its own)."""
    from agent_cli.core.files.paths import Paths
    from agent_cli.core.settings.schema import Settings
    from agent_cli.runtime.extensions.contract import ExtensionContext
    from agent_cli.runtime.extensions.discovery import Asking
    from agent_cli.runtime.extensions.registry import BUILTINS, discover

    asleep = [replace(d, asked=lambda asking: False) for d in BUILTINS]  # the port wakes its own
    found = discover(path=(), builtins=asleep, asking=Asking(workspace=options.workspace))
    paths = Paths(options.workspace)
    made = found.port(PORT, lambda n: ExtensionContext(n, options.workspace, paths, Settings(), ""))
    if not isinstance(made, Detacher):
        raise UsageError(f"{FLAG}: background sessions are not available (no background extension)")
    return made
