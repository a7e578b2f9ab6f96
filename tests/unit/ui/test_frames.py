"""The framed output's erase, on tmux: an erase that starts at the screen's top-left cell is
taken by tmux (`scroll-on-clear`, on by default) as a clear screen, and the whole screen is
copied into scrollback first."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.helpers import REPO
from tests.waiting import wait_until

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

PROGRAM = """
import sys
from prompt_toolkit.data_structures import Size
from agent_cli.ui.screen.frames import FramedOutput
out = FramedOutput(sys.stdout, lambda: Size(rows=10, columns=40))
sys.stdout.write("\\r\\n".join(f"drawn row {n}" for n in range(8)) + "\\x1b[H")
if sys.argv[1] == "framed":
    out.erase_down()
else:
    out.write_raw("\\x1b[J")
out.write_raw("erased")
out.flush()
input()
"""


@pytest.mark.parametrize(("erase", "copied"), [("framed", False), ("plain", True)])
def test_an_erase_from_the_top_left_copies_nothing_into_scrollback(
    tmp_path: Path, erase: str, copied: bool
):
    socket = str(tmp_path / "tmux.sock")
    script = tmp_path / "erase.py"
    script.write_text(PROGRAM)

    def tmux(*args: str) -> str:
        return subprocess.run(
            ["tmux", "-S", socket, *args], capture_output=True, text=True, check=False
        ).stdout

    command = f"cd {REPO} && {sys.executable} {script} {erase}"
    tmux("-f", "/dev/null", "new-session", "-d", "-x", "40", "-y", "10", command)
    try:
        wait_until(lambda: "erased" in tmux("capture-pane", "-p"), timeout=10, what="the erase")
        scrollback = tmux("capture-pane", "-p", "-S", "-")
        # plain: tmux really copies on this erase, so the framed case proves the difference
        assert ("drawn row 3" in scrollback) is copied
        assert "drawn row" not in tmux("capture-pane", "-p")  # the screen itself is erased
    finally:
        tmux("kill-server")
