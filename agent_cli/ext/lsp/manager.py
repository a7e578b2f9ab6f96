"""The run's language servers: which check a file (the configured ones that cover it, else the
first built-in one on PATH), the diagnostics an edit's result ends with, a formatter's pass on
request, the `diagnostics` tool's look-up, `/lsp`'s rows, and the end of every server.

A built-in server is looked up on PATH as the gate looks (outside/paths.py): never in a relative,
empty or in-workspace entry, where a repository's `node_modules/.bin/pylsp` would be found. A
command naming a file of the workspace runs only once `trusted` says the workspace is."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.diagnosing import EditReport
from agent_cli.ext.lsp.builtins import on_path
from agent_cli.ext.lsp.diagnostic import Diagnostic, kept, shown_lines
from agent_cli.ext.lsp.format import run_formatter
from agent_cli.ext.lsp.server import LanguageServer
from agent_cli.ext.lsp.settings import LspServerSpec, LspSettings

log = logging.getLogger(__name__)


@dataclass
class ServerRow:
    name: str
    command: str
    extensions: str
    state: str
    last_error: str
    source: str = ""  # "settings", "built in", "plugin NAME"


class LspManager:
    def __init__(
        self,
        settings: LspSettings,
        workspace: Path,
        trusted: Callable[[], bool] = lambda: False,
        plugins: Mapping[str, tuple[LspServerSpec, str]] = {},
    ) -> None:
        """`plugins`: what enabled plugins bring, name -> (spec, `plugin NAME`), after the
        configured servers."""
        self.settings, self.workspace, self.trusted = settings, workspace, trusted
        self.configured = [self._server(n, s) for n, s in settings.servers.items()]
        self.configured += [self._server(n, s) for n, (s, _) in plugins.items()]
        self._sources = {n: where for n, (_, where) in plugins.items()}
        self._builtin: list[LanguageServer] | None = None  # looked up on PATH when first needed
        self._last: dict[Path, list[Diagnostic]] = {}
        self._silent: set[str] = set()  # servers already logged as slow

    def _server(self, name: str, spec: LspServerSpec) -> LanguageServer:
        s = self.settings
        return LanguageServer(
            name, spec, self.workspace, s.start_timeout_s, s.restarts, self.trusted
        )

    @property
    def builtin(self) -> list[LanguageServer]:
        """The built-in servers whose command is on PATH (none with `lsp.builtin` off)."""
        if self._builtin is None:
            found = on_path(self.settings, self.workspace)
            self._builtin = [self._server(n, s) for n, s in found]
        return self._builtin

    def any_server(self) -> bool:
        return self.settings.enabled and bool(self.configured or self.builtin)

    def covering(self, path: Path) -> list[LanguageServer]:
        if not self.settings.enabled:
            return []
        mine = [s for s in self.configured if s.covers(path) and s.state != "failed"]
        if mine:
            return mine
        return [s for s in self.builtin if s.covers(path) and s.state != "failed"][:1]

    def _shown(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.workspace))
        except ValueError:
            return str(path)

    async def after_edit(self, path: Path) -> EditReport:
        servers = self.covering(path)
        formatted = ""
        if self.settings.format_on_edit:
            formatted = await run_formatter(
                self.settings.formatters, path, self.workspace, self.trusted()
            )
        if not servers:
            return EditReport(text=formatted, formatted=bool(formatted))
        found = await self._check(path, servers)
        text, problems = self._lines(path, found) if found is not None else ("", 0)
        return EditReport(text=formatted + text, problems=problems, formatted=bool(formatted))

    async def _check(self, path: Path, servers: list[LanguageServer]) -> list[Diagnostic] | None:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        wait = self.settings.wait_ms / 1000
        results = await asyncio.gather(*(s.check(path, text, wait) for s in servers))
        for server, result in zip(servers, results, strict=True):
            if result is None and server.name not in self._silent:
                self._silent.add(server.name)  # said once in the log, never to the model
                log.info("language server %s said nothing on %s in time", server.name, path)
        if all(r is None for r in results):
            return None
        return [d for r in results if r for d in r]

    def _lines(self, path: Path, found: list[Diagnostic]) -> tuple[str, int]:
        before = self._last.get(path, [])
        self._last[path] = found
        s = self.settings
        lines, count = shown_lines(
            self._shown(path), found, before, s.warnings, s.max_diagnostics, s.max_bytes
        )
        if count:
            kind = "problems" if s.warnings else "errors"
            return f"\n\n{count} {kind} reported after this edit:\n" + "\n".join(lines), count
        if kept(before, s.warnings):
            return "\n\nNo errors reported now.", 0  # what the edit fixed is worth a line
        return "", 0

    async def report(self, paths: list[Path]) -> str:
        """The `diagnostics` tool: each file checked as it is on disk now."""
        parts: list[str] = []
        for path in paths:
            servers = self.covering(path)
            if not servers:
                parts.append(f"{self._shown(path)}: no language server covers this file")
                continue
            found = await self._check(path, servers)
            if found is None:
                parts.append(f"{self._shown(path)}: no answer from {servers[0].name} in time")
                continue
            s = self.settings
            lines, count = shown_lines(
                self._shown(path), found, [], s.warnings, s.max_diagnostics, s.max_bytes
            )
            parts.append("\n".join(lines) if count else f"{self._shown(path)}: no errors")
        return "\n".join(parts)

    def rows(self) -> list[ServerRow]:
        rows: list[ServerRow] = []
        claimed: set[str] = set()
        for s in [*self.configured, *self.builtin]:
            state: str = s.state if s.state != "idle" else "not started"
            if s in self.builtin and set(s.spec.extensions) <= claimed:
                state = "standby (another server covers its files)"
            claimed |= set(s.spec.extensions)
            command, suffixes = " ".join(s.spec.command), " ".join(s.spec.extensions)
            where = self._sources.get(s.name) or ("built in" if s in self.builtin else "settings")
            rows.append(ServerRow(s.name, command, suffixes, state, s.last_error, where))
        return rows

    async def aclose(self) -> None:
        servers = [*self.configured, *(self._builtin or [])]
        await asyncio.gather(*(s.aclose() for s in servers), return_exceptions=True)
