"""The warm process parses `agent run` once before it serves, so a child parsing its own
arguments builds none of typer's pydantic coercions again (each one written into pages the
child would otherwise share with the server: ~1 MiB of private memory per run)."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest
import typer
from typer.core import TyperGroup

from agent_cli.cli.app import app, command
from agent_cli.cli.warm.warmup import _parse_run


def adapters_built_parsing(group: TyperGroup, monkeypatch: pytest.MonkeyPatch) -> int:
    built: list[Any] = []
    original = pydantic.TypeAdapter.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        built.append(args[0] if args else kwargs)
        original(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(pydantic.TypeAdapter, "__init__", counting)
        argv = ["run", "-p", "fix it", "--max-turns", "3", "--output-format", "json"]
        with group.make_context("agent", list(argv), resilient_parsing=True) as ctx:
            run = group.get_command(ctx, "run")
            assert run is not None
            run.make_context("run", argv[1:], parent=ctx).close()
    return len(built)


def test_a_tree_never_parsed_builds_its_coercions_on_first_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fresh = typer.main.get_command(app)
    assert isinstance(fresh, TyperGroup)
    assert adapters_built_parsing(fresh, monkeypatch) > 0


def test_after_the_warm_up_a_child_builds_none(monkeypatch: pytest.MonkeyPatch) -> None:
    _parse_run()
    group = command()
    assert isinstance(group, TyperGroup)
    assert adapters_built_parsing(group, monkeypatch) == 0
