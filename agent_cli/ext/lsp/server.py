"""One language server process: started when a file it covers is first checked, told of each
edit (whole text), its `publishDiagnostics` kept per file; restarted a bounded number of times
when it dies; shut down (then killed, with its process group) when the agent ends.

It runs outside the sandbox, so it is started through the gate (core/outside): by the absolute
path `resolve` found, with the user's environment less credentials."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent_cli.core import snapshot_hold
from agent_cli.core.outside import spawn
from agent_cli.core.outside.paths import program
from agent_cli.ext.lsp.diagnostic import Diagnostic, from_lsp
from agent_cli.ext.lsp.rpc import LspConnection, RpcClosed, RpcError
from agent_cli.ext.lsp.settings import LspServerSpec

log = logging.getLogger(__name__)

State = Literal["idle", "starting", "running", "failed", "stopped"]
LANGUAGES = {".py": "python", ".pyi": "python", ".ts": "typescript", ".tsx": "typescriptreact",
             ".js": "javascript", ".jsx": "javascriptreact", ".go": "go", ".rs": "rust",
             ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp"}  # fmt: skip
SHUTDOWN_S = 1.0


class NotRunnable(OSError):
    """A server's or formatter's program is not one the agent may start (the message says why)."""


def resolve(command: list[str], workspace: Path, cwd: Path, trusted: bool) -> list[str]:
    """`command` with its program as an absolute path (so starting it never searches PATH
    again): a bare name is looked up without PATH's relative, empty or in-workspace entries; a
    path (relative to `cwd`, the program's working directory) that lies in the workspace runs
    only once the workspace is trusted. NotRunnable otherwise."""
    name, rest = command[0], command[1:]
    if os.sep not in name:
        found = program(name, workspace)
        if found is None:
            raise NotRunnable(
                f"{name} is not on PATH (its relative, empty and in-workspace entries are skipped)"
            )
        return [found, *rest]
    given = Path(name) if Path(name).is_absolute() else cwd / name
    if not trusted and given.resolve().is_relative_to(workspace.resolve()):
        raise NotRunnable(f"{name} is in the workspace, which is not trusted (`agent trust`)")
    if not (given.is_file() and os.access(given, os.X_OK)):
        raise NotRunnable(f"{name} is not an executable file")
    return [str(given), *rest]


@dataclass
class _Published:
    diagnostics: list[Diagnostic]
    at: float  # monotonic time of the publish
    version: int | None


@dataclass
class LanguageServer:
    name: str
    spec: LspServerSpec
    workspace: Path
    start_timeout_s: float = 15
    restarts_left: int = 3
    trusted: Callable[[], bool] = lambda: False  # asked at each start: trust may come mid-run
    state: State = "idle"
    last_error: str = ""
    last_pid: int | None = None  # of the newest process started (gone once stopped)
    _process: asyncio.subprocess.Process | None = None
    _rpc: LspConnection | None = None
    _versions: dict[str, int] = field(default_factory=dict)
    _published: dict[str, _Published] = field(default_factory=dict)
    _changed: asyncio.Event | None = None
    _starting: asyncio.Task[bool] | None = None
    root: Path = Path()  # the project root it was started for (see root_for)

    @property
    def restartable(self) -> bool:
        return self.state not in ("failed", "stopped")

    def covers(self, path: Path) -> bool:
        return path.suffix in self.spec.extensions

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    async def ensure_started(self) -> bool:
        """Running (started now if need be, once at a time); False when it cannot be."""
        if self.state == "running" and self._rpc is not None and self._rpc.closed is None:
            return True
        if self.state in ("failed", "stopped"):
            return False
        if self.state == "running":  # it died since: a restart, while any are left
            await self._died((self._rpc.closed if self._rpc else None) or "exited")
            if not self.restartable:
                return False
        if self._starting is None or self._starting.done():
            self._starting = asyncio.get_running_loop().create_task(self._start())
        return await asyncio.shield(self._starting)

    async def _died(self, why: str) -> None:
        await self._stop_process()
        if self.restarts_left <= 0:
            self._fail(f"died ({why}); no restart left")
            return
        self.restarts_left -= 1
        log.warning("language server %s died (%s): restarting", self.name, why)
        self.state, self._versions, self._published = "idle", {}, {}

    def _fail(self, why: str) -> None:
        self.state, self.last_error = "failed", why
        log.warning("language server %s: %s", self.name, why)

    async def _start(self) -> bool:
        self.state, self._changed = "starting", asyncio.Event()
        cwd = self.root if self.root.is_dir() else self.workspace
        try:
            argv = resolve(self.spec.command, self.workspace, cwd, self.trusted())
            await snapshot_hold.passed()  # a turn's checkpoint first: it must not see its caches
            self._process = await spawn.start(
                argv,
                stdin=spawn.PIPE,
                stdout=spawn.PIPE,
                stderr=spawn.DEVNULL,
                cwd=cwd,
                start_new_session=True,  # its own group: the whole tree ends with it
            )
        except OSError as e:  # NotRunnable among them
            self._fail(f"cannot start {self.spec.command[0]}: {e.strerror or e}")
            return False
        self.last_pid = self._process.pid
        assert self._process.stdout is not None
        assert self._process.stdin is not None
        changed = self._changed
        self._rpc = LspConnection(
            self._process.stdout, self._process.stdin, self._on_notify, changed.set
        )
        try:
            await self._rpc.request("initialize", self._init_params(), self.start_timeout_s)
            await self._rpc.notify("initialized", {})
        except TimeoutError:
            await self._stop_process()
            self._fail(f"no answer to initialize within {self.start_timeout_s:g} s")
            return False
        except (RpcClosed, RpcError) as e:
            await self._stop_process()
            self._fail(f"initialize failed: {e}")
            return False
        self.state = "running"
        log.info("language server %s running (pid %s)", self.name, self.pid)
        return True

    def root_for(self, path: Path) -> Path:
        """The nearest folder above `path` that holds one of the root markers, up to the
        workspace; the workspace itself when none does."""
        for folder in path.parents:
            if not folder.is_relative_to(self.workspace):
                break
            if any((folder / marker).exists() for marker in self.spec.root_markers):
                return folder
        return self.workspace

    def _init_params(self) -> dict[str, Any]:
        root = self.root.as_uri()
        return {
            "processId": os.getpid(),
            "rootUri": root,
            "workspaceFolders": [{"uri": root, "name": self.root.name}],
            "initializationOptions": self.spec.init_options,
            "capabilities": {
                "textDocument": {
                    "synchronization": {"didSave": True},
                    "publishDiagnostics": {"versionSupport": True},
                }
            },
        }

    def _on_notify(self, method: str, params: Any) -> None:
        if method != "textDocument/publishDiagnostics" or not isinstance(params, dict):
            return
        uri, items = params.get("uri"), params.get("diagnostics")
        if not isinstance(uri, str) or not isinstance(items, list):
            return
        version = params.get("version")
        found = [d for d in (from_lsp(item, self.name) for item in items) if d is not None]
        self._published[uri] = _Published(
            found, time.monotonic(), version if isinstance(version, int) else None
        )
        if self._changed is not None:
            self._changed.set()

    async def check(self, path: Path, text: str, wait_s: float) -> list[Diagnostic] | None:
        """Tell the server the file's text; its diagnostics for that text, or None when it
        says nothing within `wait_s` (slow, or it never publishes for this file). A server
        found dead on the way is restarted (while restarts are left) and told again."""
        for _ in range(2):
            if self.state == "idle":
                self.root = self.root_for(path)
            if not await self.ensure_started() or self._rpc is None:
                return None
            found = await self._tell(self._rpc, path, text, wait_s)
            if found is not None or self._rpc is None or self._rpc.closed is None:
                return found  # what it published before dying counts (the next check restarts)
            await self._died(self._rpc.closed)
        return None

    async def _tell(
        self, rpc: LspConnection, path: Path, text: str, wait_s: float
    ) -> list[Diagnostic] | None:
        uri = path.as_uri()
        version = self._versions.get(uri, 0) + 1
        self._versions[uri] = version
        sent_at = time.monotonic()
        try:
            if version == 1:
                language = LANGUAGES.get(path.suffix, path.suffix.lstrip("."))
                item = {"uri": uri, "languageId": language, "version": version, "text": text}
                await rpc.notify("textDocument/didOpen", {"textDocument": item})
            else:
                document = {"uri": uri, "version": version}
                change = {"textDocument": document, "contentChanges": [{"text": text}]}
                await rpc.notify("textDocument/didChange", change)
            await rpc.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        except RpcClosed:
            return None
        return await self._wait(rpc, uri, version, sent_at, wait_s)

    async def _wait(
        self, rpc: LspConnection, uri: str, version: int, sent_at: float, wait_s: float
    ) -> list[Diagnostic] | None:
        deadline = sent_at + wait_s
        while True:  # a publish read before the server's death is still its answer
            got = self._published.get(uri)
            fresh = got is not None and (
                got.version == version if got.version is not None else got.at >= sent_at
            )
            if got is not None and fresh:
                return got.diagnostics
            left = deadline - time.monotonic()
            if rpc.closed is not None or left <= 0 or self._changed is None:
                return None
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    def current(self, path: Path) -> list[Diagnostic] | None:
        got = self._published.get(path.as_uri())
        return None if got is None else got.diagnostics

    async def aclose(self) -> None:
        if self._rpc is not None and self._rpc.closed is None and self.state == "running":
            with contextlib.suppress(Exception):
                await self._rpc.request("shutdown", None, SHUTDOWN_S)
                await self._rpc.notify("exit", None)
        await self._stop_process()
        if self.state != "failed":
            self.state = "stopped"

    async def _stop_process(self) -> None:
        if self._rpc is not None:
            await self._rpc.aclose()
            self._rpc = None
        process, self._process = self._process, None
        if process is None:
            return
        if process.returncode is None:
            with contextlib.suppress(asyncio.TimeoutError, TimeoutError):
                await asyncio.wait_for(process.wait(), SHUTDOWN_S / 2)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # what it started goes too
        with contextlib.suppress(Exception):
            await process.wait()
