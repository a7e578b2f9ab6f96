"""Completion in the input line: slash commands at the start, workspace paths after `@`."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from agent_cli.ui.input.file_match import SKIP, WorkspaceFiles, fuzzy

MAX_ENTRIES = 200


class ChatCompleter(Completer):
    def __init__(
        self,
        workspace: Path,
        commands: Callable[[], Iterable[str | tuple[str, str]]],
        mentions: Callable[[], Iterable[str]] = lambda: (),
        describe: Callable[[str], str] = lambda _name: "",
    ) -> None:
        self.workspace = workspace
        self.commands = commands
        self.mentions = mentions  # `server:uri` of MCP resources
        self.describe = describe  # the slash menu's second column for built-in commands
        self.files = WorkspaceFiles(workspace)

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and " " not in before:
            for item in self.commands():  # a name, or (name, description) for project commands
                name, meta = item if isinstance(item, tuple) else (item, "")
                if name.startswith(before):
                    meta = meta or self.describe(name)
                    yield Completion(name, start_position=-len(before), display_meta=meta)
            return
        word = before.split()[-1] if before and not before[-1].isspace() else ""
        if word.startswith("@"):
            for mention in self.mentions():
                if mention.startswith(word[1:]):
                    yield Completion(mention, start_position=-len(word) + 1)
            listed = self.files.files()
            if listed is None:  # no ripgrep: the folder typed so far, by prefix
                yield from self._paths(word[1:])
                return
            for path in fuzzy(word[1:], listed):
                yield Completion(path, start_position=-len(word) + 1, display=path)

    def _paths(self, partial: str) -> Iterator[Completion]:
        folder, _, prefix = partial.rpartition("/")
        base = (self.workspace / folder).resolve()
        if not base.is_dir() or not base.is_relative_to(self.workspace):
            return
        try:
            entries = sorted(os.scandir(base), key=lambda e: e.name)[:MAX_ENTRIES]
        except OSError:
            return
        for entry in entries:
            if not entry.name.startswith(prefix) or entry.name in SKIP:
                continue
            if entry.name.startswith(".") and not prefix.startswith("."):
                continue
            suffix = "/" if entry.is_dir() else ""
            text = (f"{folder}/" if folder else "") + entry.name + suffix
            yield Completion(text, start_position=-len(partial), display=entry.name + suffix)
