"""Edits that know what they broke: a real language server (python-lsp-server with pyflakes)
and hostile ones (crashing, silent, speaking garbage, dying mid-session) behind the edit tools,
in this process; one whole turn against the fake model where the server is broken."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.core.tool_contract import ToolContext, ToolResult
from agent_cli.ext.lsp import Diagnostics, DiagnosticsInput
from agent_cli.ext.lsp.manager import LspManager
from agent_cli.ext.lsp.service import LspService
from agent_cli.ext.lsp.settings import LspSettings
from agent_cli.runtime.extensions.settings import read_settings
from agent_cli.tools.edit_file import EditFile, EditFileInput
from agent_cli.tools.read_file import ReadFile, ReadFileInput
from agent_cli.tools.write_file import WriteFile, WriteFileInput
from tests.e2e.helpers import run_agent
from tests.e2e.runtime_support import drive, make_runtime
from tests.fake_model import FakeAnthropic

FAKE = str(Path(__file__).parent / "lsp_servers" / "fake_lsp.py")


def servers(**commands: list[str]) -> dict[str, Any]:
    return {name: {"command": argv, "extensions": [".py"]} for name, argv in commands.items()}


def manager(workspace: Path, **settings: Any) -> LspManager:
    return LspManager(LspSettings.model_validate({"builtin": False, **settings}), workspace)


def context(workspace: Path, lsp: LspManager) -> ToolContext:
    return ToolContext(
        workspace=workspace,
        paths=Paths(workspace),
        session_id="s",
        settings=Settings(),
        diagnoser=lsp,
    )


async def write(ctx: ToolContext, path: str, content: str) -> ToolResult:
    return await WriteFile().run(WriteFileInput(path=path, content=content), ctx)


async def edit(ctx: ToolContext, path: str, old: str, new: str) -> ToolResult:
    args = EditFileInput(path=path, old_string=old, new_string=new)
    return await EditFile().run(args, ctx)


def alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").exists() and " Z " not in Path(f"/proc/{pid}/stat").read_text()


def test_pylsp_names_the_undefined_name_and_forgets_it_once_fixed(tmp_path: Path):
    pylsp = [sys.executable, "-m", "pylsp"]
    lsp = manager(tmp_path, servers=servers(pylsp=pylsp), wait_ms=5000)
    ctx = context(tmp_path, lsp)

    async def go() -> tuple[ToolResult, ToolResult, ToolResult, str]:
        try:
            clean = await write(ctx, "mod.py", "def f(x):\n    return x\n")
            broken = await edit(ctx, "mod.py", "return x", "return x + undefined_thing")
            fixed = await edit(ctx, "mod.py", "x + undefined_thing", "x + 1")
            now = await Diagnostics().run(DiagnosticsInput(paths=["mod.py"]), ctx)
            return clean, broken, fixed, now.content
        finally:
            await lsp.aclose()

    clean, broken, fixed, now = asyncio.run(go())
    assert "error" not in clean.content
    assert "mod.py:2:" in broken.content
    assert "undefined name 'undefined_thing'" in broken.content
    assert "(pyflakes)" in broken.content
    assert broken.summary.endswith("· 1 problem")
    assert "undefined_thing" not in fixed.content
    assert "No errors reported now." in fixed.content
    assert now == "mod.py: no errors"
    (server,) = lsp.configured
    assert server.state == "stopped"
    assert server.last_pid is not None
    assert not alive(server.last_pid)


def test_new_diagnostics_come_first_and_the_cap_holds(tmp_path: Path):
    lsp = manager(tmp_path, servers=servers(fake=[sys.executable, FAKE, "ok"]), max_diagnostics=2)
    ctx = context(tmp_path, lsp)

    async def go() -> tuple[ToolResult, ToolResult]:
        try:
            first = await write(ctx, "a.py", "x = 1  # BROKEN old\n")
            second = await write(
                ctx, "a.py", "x = 1  # BROKEN old\ny = 2\nz = 3  # BROKEN new\n" * 2
            )
            return first, second
        finally:
            await lsp.aclose()

    first, second = asyncio.run(go())
    assert "a.py:1:" in first.content
    lines = second.content.splitlines()
    shown = [line for line in lines if line.startswith("a.py:")]
    assert shown[0].startswith("a.py:3:")  # the new one, before the line that was broken already
    assert len(shown) == 2
    assert "… 2 more" in second.content
    assert "4 errors reported" in second.content


def test_a_file_no_server_covers_starts_nothing_and_gets_nothing(tmp_path: Path):
    lsp = manager(tmp_path, servers=servers(fake=[sys.executable, FAKE, "ok"]))
    ctx = context(tmp_path, lsp)
    result = asyncio.run(write(ctx, "notes.md", "BROKEN\n"))
    assert result.content == "Created notes.md (1 line, 7 bytes)."
    assert [row.state for row in lsp.rows()] == ["not started"]


@pytest.mark.parametrize(
    ("mode", "error"),
    [
        ("crash", "initialize failed"),
        ("silent", "no answer to initialize"),
        ("garbage", "not an LSP header"),
    ],
)
def test_a_broken_server_never_breaks_the_edit(tmp_path: Path, mode: str, error: str):
    lsp = manager(tmp_path, servers=servers(bad=[sys.executable, FAKE, mode]), start_timeout_s=1.5)
    ctx = context(tmp_path, lsp)

    async def go() -> list[ToolResult]:
        try:
            return [await write(ctx, "a.py", f"x = {n}  # BROKEN\n") for n in range(3)]
        finally:
            await lsp.aclose()

    results = asyncio.run(go())
    assert [r.is_error for r in results] == [False, False, False]
    assert all(r.content.startswith(("Created a.py", "Overwrote a.py")) for r in results)
    (server,) = lsp.configured
    assert server.state == "failed"
    assert error in server.last_error
    assert server.last_pid is not None
    assert not alive(server.last_pid)


def test_a_server_that_dies_is_restarted_a_bounded_number_of_times(tmp_path: Path):
    lsp = manager(
        tmp_path,
        servers=servers(fragile=[sys.executable, FAKE, "die-after-publish"]),
        restarts=1,
        wait_ms=5000,  # the restarted server starts within the edit's wait: on a loaded machine
    )  # a Python process takes longer than the default 750 ms to start and answer
    ctx = context(tmp_path, lsp)

    async def go() -> list[ToolResult]:
        try:
            return [await write(ctx, "a.py", f"x = {n}  # BROKEN\n") for n in range(4)]
        finally:
            await lsp.aclose()

    results = asyncio.run(go())
    with_diagnostics = ["BROKEN on line 1" in r.content for r in results]
    assert with_diagnostics[0]  # it published, then died
    assert with_diagnostics.count(True) == 2  # once more after its one restart, then no more
    (server,) = lsp.configured
    assert server.state == "failed"
    assert "no restart left" in server.last_error


def test_format_on_edit_rewrites_and_the_next_edit_still_matches(tmp_path: Path):
    tabs_to_spaces = [
        sys.executable, "-c",
        "import pathlib, sys; p = pathlib.Path(sys.argv[1]); "
        "p.write_text(p.read_text().replace('\\t', '    '))",
        "{file}",
    ]  # fmt: skip
    lsp = manager(tmp_path, format_on_edit=True, formatters={".py": tabs_to_spaces})
    ctx = context(tmp_path, lsp)

    async def go() -> tuple[ToolResult, ToolResult]:
        try:
            written = await write(ctx, "a.py", "def f():\n\treturn 1\n")
            edited = await edit(ctx, "a.py", "    return 1", "    return 2")
            return written, edited
        finally:
            await lsp.aclose()

    written, edited = asyncio.run(go())
    assert "formatted the file: 2 lines changed" in written.content
    assert (tmp_path / "a.py").read_text() == "def f():\n    return 2\n"
    assert not edited.is_error


def test_the_diagnostics_tool_checks_the_files_the_session_edited(tmp_path: Path):
    lsp = manager(tmp_path, servers=servers(fake=[sys.executable, FAKE, "ok"]))
    ctx = context(tmp_path, lsp)
    (tmp_path / "b.py").write_text("BROKEN = 1\n")

    async def go() -> tuple[str, str, ToolResult]:
        try:
            await write(ctx, "a.py", "ok = 1\n")
            await ReadFile().run(ReadFileInput(path="b.py"), ctx)
            edited = (await Diagnostics().run(DiagnosticsInput(), ctx)).content
            named = (await Diagnostics().run(DiagnosticsInput(paths=["b.py"]), ctx)).content
            outside = await Diagnostics().run(DiagnosticsInput(paths=["../x.py"]), ctx)
            return edited, named, outside
        finally:
            await lsp.aclose()

    edited, named, outside = asyncio.run(go())
    assert edited == "a.py: no errors"  # only what the session wrote
    assert named == "b.py:1:1 error BROKEN on line 1 (fake)"
    assert outside.is_error


def test_a_workspace_lsp_entry_waits_for_trust(tmp_path: Path, monkeypatch, caplog):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    (tmp_path / ".agent").mkdir()
    local = {"lsp": {"wait_ms": 50, "servers": servers(evil=["touch", "/tmp/pwned"])}}
    (tmp_path / ".agent" / "settings.json").write_text(json.dumps(local))
    with caplog.at_level("WARNING"):
        untrusted = read_settings(tmp_path, trusted=False).model_dump()
    assert untrusted["lsp"]["servers"] == {}
    assert untrusted["lsp"]["wait_ms"] == 50  # what only narrows is kept
    said = [r.getMessage() for r in caplog.records if "lsp" in r.getMessage()]
    assert said == ["the workspace's lsp servers and formatters are ignored until `agent trust`"]
    assert list(read_settings(tmp_path, trusted=True).model_dump()["lsp"]["servers"]) == ["evil"]


@pytest.mark.usefixtures("sdk_env")
def test_a_turn_with_a_garbage_server_stays_valid_and_leaves_nothing_running(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    config = tmp_path / "config" / "agent"
    config.mkdir(parents=True)
    garbage = {"servers": servers(junk=[sys.executable, FAKE, "garbage"]), "start_timeout_s": 1}
    (config / "settings.json").write_text(json.dumps({"lsp": garbage}))
    fake_model.script.tool_use("write_file", path="a.py", content="x = 1\n").text("done")
    runtime = make_runtime(tmp_path, monkeypatch)
    service = runtime.extension("lsp")
    assert isinstance(service, LspService)
    lsp = service.manager
    events = asyncio.run(drive(runtime, "write a.py"))
    assert events
    tool_names = [t["name"] for t in fake_model.bodies()[0]["tools"]]
    assert "diagnostics" in tool_names
    result = fake_model.bodies()[1]["messages"][-1]["content"][0]
    assert result["type"] == "tool_result"
    assert "is_error" not in result or result["is_error"] is False
    (server,) = lsp.configured
    assert server.state == "failed"
    assert server.last_pid is not None
    assert not alive(server.last_pid)
    (row,) = service.rows()  # what /lsp shows
    assert (row.name, row.state) == ("junk", "failed")
    assert "not an LSP header" in row.last_error
    log = (tmp_path / "logs" / "agent.log").read_text()
    assert "language server junk" in log


def test_lsp_status_lists_what_would_check_edits_and_starts_nothing(
    tmp_path: Path, fake_env: dict[str, str]
):
    import subprocess

    config = tmp_path / "cfg" / "agent"
    config.mkdir(parents=True)
    mine = {"lsp": {"servers": servers(fake=[sys.executable, FAKE, "ok"], gone=["no-such-lsp"])}}
    (config / "settings.json").write_text(json.dumps(mine))
    (tmp_path / "ws" / ".agent").mkdir(parents=True)
    theirs = {"lsp": {"servers": servers(evil=["touch", "pwned"])}}
    (tmp_path / "ws" / ".agent" / "settings.json").write_text(json.dumps(theirs))
    env = {**fake_env, "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "AGENT_LSP_BUILTIN": "0"}
    argv = [sys.executable, "-m", "agent_cli", "lsp", "status", "-w", str(tmp_path / "ws")]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("fake  .py  `")
    assert lines[1] == (
        "gone  .py  `no-such-lsp`  (no-such-lsp is not on PATH (its relative, empty and "
        "in-workspace entries are skipped))"
    )
    assert "evil" not in done.stdout
    assert done.stderr.count("ignored until `agent trust`") == 1
    assert not (tmp_path / "ws" / "pwned").exists()


def test_slash_lsp_in_chat_lists_the_servers_of_the_run(tmp_path: Path, fake_env: dict[str, str]):
    config = tmp_path / "cfg" / "agent"
    config.mkdir(parents=True)
    mine = {"lsp": {"servers": servers(fake=[sys.executable, FAKE, "ok"])}}
    (config / "settings.json").write_text(json.dumps(mine))
    env = {**fake_env, "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    proc = run_agent(env, tmp_path, "chat", stdin="/lsp\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == f"fake  not started  .py  `{sys.executable} {FAKE} ok`"


def test_the_server_starts_at_the_nearest_root_marker_inside_the_workspace(tmp_path: Path):
    (tmp_path / "pkg" / "src").mkdir(parents=True)
    (tmp_path / "pkg" / "pyproject.toml").write_text("")
    spec = {"command": [sys.executable, FAKE, "ok"], "extensions": [".py"]}
    lsp = manager(tmp_path, servers={"fake": {**spec, "root_markers": ["pyproject.toml"]}})
    (server,) = lsp.configured
    assert server.root_for(tmp_path / "pkg" / "src" / "m.py") == tmp_path / "pkg"
    assert server.root_for(tmp_path / "top.py") == tmp_path
    (tmp_path.parent / "pyproject.toml").touch()  # above the workspace: never the root
    try:
        assert server.root_for(tmp_path / "top.py") == tmp_path
    finally:
        (tmp_path.parent / "pyproject.toml").unlink()
    ctx = context(tmp_path, lsp)

    async def go() -> ToolResult:
        try:
            return await write(ctx, "pkg/src/m.py", "BROKEN = 1\n")
        finally:
            await lsp.aclose()

    assert "BROKEN on line 1" in asyncio.run(go()).content
    assert server.root == tmp_path / "pkg"
