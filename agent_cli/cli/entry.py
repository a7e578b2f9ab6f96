"""Console entry point. Only the standard library is imported until this process knows it runs
the command itself: `agent --version` answers at once, and `agent run` is handed to the warm
per-user process when one serves (cli/warm/), else it runs here.

`agent run` and `agent chat` end without the interpreter's module teardown (0.6-0.9 s of
freeing the SDK's objects): once the command returned, everything it wrote is synced and
the process exits at once with its code."""

from __future__ import annotations

import os
import resource
import sys

from agent_cli.core.files import durable

FAST_EXIT = ("run", "chat")
WORKTREE = "--worktree"  # cli/worktree_session.py's FLAG: a bare one needs rewriting first
BACKGROUND = "--bg"  # cli/commands/background.py's FLAG: started here, not by the warm process
QUICK = {  # an extension's command answered before typer loads: command -> the module whose
    # `quick(argv) -> int | None` answers it (None: typer does). Named, never imported by the
    # spine's code: loaded without its extension's package (`quick_command`)
    "ps": "agent_cli.ext.background.listing",
    "attach": "agent_cli.ext.background.acp.attach_quick",
}


def keep_bytecode_whole() -> None:
    """Under a file-size limit (`prlimit --fsize`, `ulimit -f`) no bytecode is written: CPython
    writes a .pyc with one unchecked write and renames it into place, so the limit's cut file
    became the cache and broke that module's import in every later run, limited or not."""
    if resource.getrlimit(resource.RLIMIT_FSIZE)[0] != resource.RLIM_INFINITY:
        sys.dont_write_bytecode = True


def adopt_descendants() -> None:
    """A process of its own (never a host that runs the CLI in-process, such as a test runner,
    whose other children are not ours to reap) becomes the subreaper of what it starts."""
    from agent_cli.core.outside import reap

    reap.adopt()


def main() -> None:
    keep_bytecode_whole()
    argv = sys.argv[1:]
    if argv in (["--version"], ["-V"]):
        from agent_cli import __version__

        sys.stdout.write(f"agent {__version__}\n")
        sys.stdout.flush()
        return
    if argv[:1] == ["run"] and BACKGROUND not in argv:
        from agent_cli.cli.warm.client import through_server

        code = through_server(argv)
        if code is not None:
            flush_std()
            os._exit(code)
    if not argv or argv[0] not in QUICK:  # a listing starts nothing to reap
        adopt_descendants()
    code = run_in_process(argv)
    if argv[:1] and argv[0] in FAST_EXIT:
        settle()
        os._exit(code)
    sys.exit(code)


def run_in_process(argv: list[str]) -> int:
    """The command, run in this process (also in a child of the warm process): its exit code."""
    if argv[:1] == ["sessions"]:
        from agent_cli.cli.sessions_list import quick

        code = quick(argv[1:])  # the listing is done before typer would have loaded
        if code is not None:
            return code
    if argv[:1] and argv[0] in QUICK:
        code = quick_command(QUICK[argv[0]], argv[1:])
        if code is not None:
            return code
    try:
        if argv[:1] == ["chat"]:
            from agent_cli.cli.chat_start import run_chat

            run_chat(argv[1:])  # the prompt appears before typer would have loaded
        else:
            from agent_cli.cli.app import command

            if argv[:1] == ["run"] and WORKTREE in argv:
                from agent_cli.cli.worktree_session import optional_name

                argv = optional_name(argv)
            command()(args=argv, prog_name="agent")
    except SystemExit as e:
        return exit_code(e.code)
    return 0


def quick_command(module: str, argv: list[str]) -> int | None:
    """`module`'s quick answer to `argv`, its packages not run: an extension's package declares
    it (the contract and its settings: 0.2 s), which a quick answer does not need. When it
    leaves the command to typer (None), what was imported so is forgotten: the packages and
    their modules are then imported as any command's are."""
    import importlib
    import importlib.util

    before = set(sys.modules)
    parts = module.split(".")
    for depth in range(2, len(parts)):  # each package below `agent_cli`, from the top
        package = ".".join(parts[:depth])
        if package not in sys.modules:
            spec = importlib.util.find_spec(package)
            if spec is None:
                return None
            sys.modules[package] = importlib.util.module_from_spec(spec)  # not executed
    code: int | None = None
    try:
        code = importlib.import_module(module).quick(argv)
    finally:
        if code is None:
            for name in set(sys.modules) - before:
                del sys.modules[name]
    return code


def exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write(f"{code}\n")  # what sys.exit("message") would have printed
    return 1


def settle() -> None:
    """Before `os._exit`: the log handlers flushed and closed, every file the run wrote
    fsynced, stdout and stderr flushed. Background work was finished or cancelled by the
    command itself (Runtime.aclose) before it returned."""
    import logging

    logging.shutdown()
    durable.sync_written()
    flush_std()


def flush_std() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 - contextlib is not imported by the thin client
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more to deliver
            pass
