"""`agent rewind --code` and the turn's checkpoints against links somebody planted: nothing is
ever written through a link to outside the workspace, and what cannot be done is said in one
line (exit 2), never as git's own error or a traceback. Issue 50, "Also".

The hostile step is played for real: a confined `bash` call of a turn (real bubblewrap, with a
probe that proves it was confined), a cloned repository that ships the link, or, for what no
confined command can reach (the store under the read-only `.agent`), the link put there as any
program outside the sandbox could; and a confined process that swaps a folder for a link while
the rewind fills it. Outside is then looked at: every file there, byte for byte."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from agent_cli.ext.sandbox.policy import SandboxPolicy
from agent_cli.ext.sandbox.probe import probe
from agent_cli.ext.sandbox.wrap import wrap
from tests.e2e.checkpoint_support import git
from tests.e2e.helpers import last_user_blocks
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli
from tests.waiting import wait_until

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap"),
]

CONFINED = ("--sandbox", "required")
FILES = 1500  # the race: a restore that checks, then writes, lost it in 7 runs of 8


def _workspace(root: Path) -> Path:
    ws = root / "ws"
    (ws / "src" / "deep").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("one\n")
    (ws / "src" / "deep" / "b.py").write_text("two\n")
    (ws / "top.txt").write_text("top\n")
    return ws


def _outside(root: Path) -> Path:
    outside = root / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("the user's own\n")
    return outside


def _contents(folder: Path) -> dict[str, bytes | str]:
    """Every entry under `folder`: a file's bytes, a link's target, a folder's name."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[name] = f"-> {path.readlink()}"
        elif path.is_file():
            found[name] = path.read_bytes()
        else:
            found[name] = "dir"
    return found


def _turn(
    fake_model: FakeAnthropic, env: dict[str, str], ws: Path, outside: Path, command: str
) -> tuple[str, str]:
    """One turn whose only tool call is `command`, confined; its checkpoint id and stderr.
    The same call first tries a write outside: the sandbox must refuse it."""
    probe = f"touch {outside}/escaped 2>/dev/null; "
    fake_model.script.tool_use("bash", command=f"{probe}{command} && echo RAN").text("done")
    proc = run_cli(env, ws, "run", "-p", "go", *CONFINED, "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    (result,) = last_user_blocks(fake_model.bodies()[-1])
    assert "RAN" in str(result["content"]), result
    assert not (outside / "escaped").exists()  # the hostile step really ran confined
    return json.loads(proc.stdout)["checkpoint_id"], proc.stderr


def _rewind(env: dict[str, str], ws: Path, checkpoint: str) -> subprocess.CompletedProcess[str]:
    proc = run_cli(env, ws, "rewind", checkpoint, "--code")
    assert "Traceback" not in proc.stderr
    assert "fatal:" not in proc.stderr  # git's own words are never the message
    return proc


def test_a_folder_swapped_for_a_link_outside_is_put_back_not_written_through(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    ws, outside = _workspace(tmp_path), _outside(tmp_path)
    before = _contents(outside)
    checkpoint, stderr = _turn(
        fake_model, fake_env, ws, outside, f"rm -rf src && ln -s {outside} src"
    )
    assert (ws / "src").is_symlink()
    assert "not snapshotted" not in stderr  # the turn's end was stored, the link as a link

    proc = _rewind(fake_env, ws, checkpoint)
    assert proc.returncode == 0, proc.stderr
    assert not (ws / "src").is_symlink()
    assert (ws / "src" / "a.py").read_text() == "one\n"
    assert (ws / "src" / "deep" / "b.py").read_text() == "two\n"
    assert _contents(outside) == before
    undo = proc.stdout.split()[1]  # the link itself can be brought back, never followed
    assert _rewind(fake_env, ws, undo).returncode == 0
    assert (ws / "src").readlink() == outside
    assert _contents(outside) == before


def test_a_deeper_folder_swapped_for_a_link_inside_an_ignored_one_is_left_alone(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """The command also hides its link from the snapshot with a .gitignore: the rewind cannot
    take the link away, so what belongs under it is named as left alone, not written."""
    ws, outside = _workspace(tmp_path), _outside(tmp_path)
    before = _contents(outside)
    hostile = f"echo src/deep > .gitignore && rm -rf src/deep && ln -s {outside} src/deep"
    checkpoint, _ = _turn(fake_model, fake_env, ws, outside, hostile)

    proc = _rewind(fake_env, ws, checkpoint)
    assert proc.returncode == 0, proc.stderr
    assert "left alone src/deep/b.py: src/deep is a symbolic link" in proc.stdout
    assert (ws / "src" / "a.py").read_text() == "one\n"
    assert _contents(outside) == before


def test_a_file_swapped_for_a_link_outside_is_replaced_not_written_through(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    ws, outside = _workspace(tmp_path), _outside(tmp_path)
    before = _contents(outside)
    hostile = f"rm top.txt src/a.py && ln -s {outside}/keep.txt top.txt && ln -s ../x src/a.py"
    checkpoint, _ = _turn(fake_model, fake_env, ws, outside, hostile)

    proc = _rewind(fake_env, ws, checkpoint)
    assert proc.returncode == 0, proc.stderr
    assert not (ws / "top.txt").is_symlink()
    assert (ws / "top.txt").read_text() == "top\n"
    assert (ws / "src" / "a.py").read_text() == "one\n"
    assert not (ws / "x").exists()
    assert _contents(outside) == before


def test_a_cloned_repositorys_checkpoints_link_gets_nothing_written_through_it(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """A repository that ships `.agent/checkpoints -> ../../outside`: the turn runs, without a
    checkpoint and saying why; the folder outside stays as it was."""
    origin = _workspace(tmp_path / "origin")
    outside = _outside(tmp_path)
    (origin / ".agent").mkdir()
    (origin / ".agent" / "checkpoints").symlink_to(Path("..", "..", "outside"))
    git(origin, "init", "-q")
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "a repository with a planted link")
    ws = tmp_path / "ws"
    subprocess.run(["git", "clone", "-q", str(origin), str(ws)], check=True)
    assert (ws / ".agent" / "checkpoints").resolve() == outside
    before = _contents(outside)

    fake_model.script.tool_use("bash", command="echo changed > top.txt").text("done")
    proc = run_cli(fake_env, ws, "run", "-p", "go", *CONFINED, "--output-format", "json")
    assert _contents(outside) == before
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["checkpoint_id"] is None
    assert "checkpoints is a symbolic link" in proc.stderr
    assert "Traceback" not in proc.stderr


def _store(ws: Path) -> Path:
    (key,) = [p for p in (ws / ".agent" / "checkpoints").iterdir() if p.is_dir()]
    return key


def _git_dir_to_outside(store: Path, outside: Path) -> str:
    shutil.rmtree(store / "git")
    (store / "git").symlink_to(outside)
    return "git"


def _git_dir_dangling(store: Path, outside: Path) -> str:
    shutil.rmtree(store / "git")
    (store / "git").symlink_to(outside / "not-yet")
    return "git"


def _reflog_to_outside(store: Path, outside: Path) -> str:
    (store / "git" / "logs" / "HEAD").unlink()
    (store / "git" / "logs" / "HEAD").symlink_to(outside / "keep.txt")
    return "logs/HEAD"


def _store_moved_outside(store: Path, outside: Path) -> str:
    checkpoints = store.parent
    shutil.copytree(checkpoints, outside / "checkpoints", symlinks=True)
    shutil.rmtree(checkpoints)
    checkpoints.symlink_to(outside / "checkpoints")
    return "checkpoints"


@pytest.mark.parametrize(
    "plant",
    [_git_dir_to_outside, _git_dir_dangling, _reflog_to_outside, _store_moved_outside],
    ids=["git-dir", "git-dir-dangling", "reflog", "checkpoints-folder"],
)
def test_rewind_through_a_link_in_the_store_is_refused_in_one_line(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, plant
) -> None:
    """The store sits under `.agent`, which no confined command can write (the sandbox binds
    it read-only); a program outside the sandbox can, and so the link is put there directly."""
    ws, outside = _workspace(tmp_path), _outside(tmp_path)
    checkpoint, _ = _turn(fake_model, fake_env, ws, outside, "echo changed > top.txt")
    linked = plant(_store(ws), outside)
    before = _contents(outside)

    proc = run_cli(fake_env, ws, "rewind", checkpoint, "--code")
    assert _contents(outside) == before
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.splitlines()  # one line, neither git's words nor a traceback
    assert f"{linked} is a symbolic link" in line
    assert "--state-dir" in line
    assert (ws / "top.txt").read_text() == "changed\n"  # nothing restored either


RACER = """
import ctypes, os, random, sys
libc = ctypes.CDLL(None, use_errno=True)
open("racer-ready", "w").close()
while not os.path.isdir("d"):
    pass
os.symlink(sys.argv[1], "link")
while True:  # the folder being filled and a link outside change places, atomically, over and over
    libc.renameat2(-100, b"d", -100, b"link", 2)  # AT_FDCWD, RENAME_EXCHANGE
    for _ in range(random.randrange(3000)):  # a pause of a few µs, never the same
        pass
"""


def test_a_folder_swapped_for_a_link_while_the_rewind_writes_into_it(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """A confined process that outlives its turn (a background job, a second session's
    command) swaps the folder the rewind is filling for a link outside, as fast as it can:
    every write is made through the folder the rewind opened, never through a path looked
    at a moment before."""
    ws, outside = _workspace(tmp_path), _outside(tmp_path)
    (ws / "d").mkdir()
    for n in range(FILES):
        (ws / "d" / f"f{n:03}").write_text(f"{n}\n")
    checkpoint, _ = _turn(fake_model, fake_env, ws, outside, "rm -rf d")
    before = _contents(outside)
    policy = SandboxPolicy(workspace=ws, home=Path(fake_env["HOME"]))
    argv = wrap([sys.executable, "-c", RACER, str(outside)], policy, probe(), mode="required")
    racer = subprocess.Popen(argv, cwd=ws, start_new_session=True)
    try:
        wait_until(lambda: (ws / "racer-ready").exists(), what="the racer started")
        proc = run_cli(fake_env, ws, "rewind", checkpoint, "--code")
    finally:
        os.killpg(racer.pid, signal.SIGKILL)
        racer.wait()
    assert _contents(outside) == before
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
