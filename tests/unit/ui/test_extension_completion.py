"""Tab completes an extension's slash command as it completes the chat's own: /undo is the
checkpoints extension's, offered with its line of /help."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

import agent_cli.ui.slash.commands  # noqa: F401 - what the REPL has loaded once it booted
from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.runtime.extensions.discovery import Asking
from agent_cli.runtime.extensions.registry import discover
from agent_cli.ui.app import _slash_description, _slash_names
from agent_cli.ui.input.completion import ChatCompleter
from agent_cli.ui.slash.workspace_commands import completion_items  # noqa: F401 - loaded by slash


def test_an_extension_command_is_completed_with_its_description(tmp_path: Path) -> None:
    extensions = discover(path=[], asking=Asking(command="chat"))
    runtime = SimpleNamespace(
        wiring=SimpleNamespace(extensions=extensions),
        options=SimpleNamespace(workspace=tmp_path),
        session=SimpleNamespace(paths=Paths(tmp_path), id="s-1"),
        settings=Settings(),
        extension=lambda name: None,
        port=lambda name: None,
    )  # what the REPL's runtime offers the completer
    repl = SimpleNamespace(runtime=runtime)
    booted: dict[str, object] = {}
    completer = ChatCompleter(
        tmp_path,
        lambda: _slash_names(booted),
        lambda: [],
        lambda name: _slash_description(name, booted),
    )
    assert list(completer.get_completions(Document("/und"), CompleteEvent())) == []  # not booted
    booted["repl"] = repl
    (found,) = completer.get_completions(Document("/und"), CompleteEvent())
    assert found.text == "/undo"
    assert found.display_meta_text.startswith("take the last turn back")
