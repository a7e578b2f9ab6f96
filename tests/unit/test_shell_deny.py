"""Issue 19 through the tools' public entry (dispatch with the real policy gate): deny-list
evasions (finding 9) and commands too large to parse in time (finding 13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_cli.tools.shell.bash import MAX_COMMAND_BYTES
from agent_cli.tools.shell.deny import DETAILED_CHARS, TOO_DEEP, denied
from agent_cli.tools.shell.rules import is_read_only
from tests.unit.tool_helpers import call, gated_registry, make_ctx

EVASIONS = [
    "env -u HOME sudo id",
    "env --unset=HOME sudo id",
    "env -C /tmp sudo id",
    "env -S 'sudo id'",
    "timeout -s KILL 5 sudo id",
    "timeout -k 1 5 sudo id",
    "stdbuf -o L sudo id",
    "nice -n 5 sudo id",
    "xargs -I {} sudo rm {}",
    "find . -exec sudo id \\;",
    "find . -execdir sudo rm {} +",
    "rm -rf ${HOME}",
    'rm -rf "${HOME}"',
    "rm -rf ${HOME}/",
]


@pytest.mark.parametrize("command", EVASIONS)
def test_bypass_refuses_the_deny_list_behind_wrapper_options(tmp_path: Path, command: str):
    assert denied(command) is not None
    ctx = make_ctx(tmp_path)
    result = call(gated_registry(ctx, "bypass"), ctx, "bash", command=command)
    assert result.is_error
    assert "deny list" in result.content


@pytest.mark.parametrize(
    "command", ["env -u HOME ls", "timeout -s KILL 5 ls", "find . -name x", "rm -rf build"]
)
def test_harmless_commands_behind_wrappers_are_not_denied(command: str):
    assert denied(command) is None


@pytest.mark.parametrize("size", [1_000_000, 10_000_000])
def test_a_command_over_the_system_limit_is_an_error_result_before_any_parsing(
    tmp_path: Path, size: int
):
    ctx = make_ctx(tmp_path)
    command = "echo " + "a;" * (size // 2)
    result = call(gated_registry(ctx, "bypass"), ctx, "bash", command=command)
    assert result.is_error
    assert f"{MAX_COMMAND_BYTES:,}" in result.content
    assert "write_file" in result.content


def test_nesting_deeper_than_anyone_writes_is_refused_not_followed(tmp_path: Path):
    command = "eval " * 3_000 + "ls"  # 15 KB: checked word by word, quadratic to follow
    assert len(command) <= DETAILED_CHARS
    assert denied(command) == TOO_DEEP
    assert denied("eval " * 3 + "ls") is None
    ctx = make_ctx(tmp_path)
    result = call(gated_registry(ctx, "bypass"), ctx, "bash", command=command)
    assert result.is_error
    assert "nested" in result.content


LONG = "echo " + "a " * 60_000  # 120 KB: under the system limit, too long to split word by word


@pytest.mark.parametrize(
    "tail", ["; sudo id", " && rm -rf ~", ' ; rm -rf "${HOME}"', " | dd if=/dev/zero of=x",
             "; eval 'sudo id'", "; mkfs.ext4 /dev/sdb"],
)  # fmt: skip
def test_a_long_command_naming_a_denied_program_anywhere_is_refused(tmp_path: Path, tail: str):
    command = LONG + tail
    assert len(command) < MAX_COMMAND_BYTES
    assert denied(command) is not None
    ctx = make_ctx(tmp_path)
    result = call(gated_registry(ctx, "bypass"), ctx, "bash", command=command)
    assert result.is_error
    assert "deny list" in result.content


def test_a_long_harmless_command_is_not_denied_but_is_always_asked():
    assert denied(LONG + "; rm -rf build") is None
    assert denied(LONG + "; echo pseudo") is None
    assert not is_read_only("cat " + "a.txt " * 3_000)
