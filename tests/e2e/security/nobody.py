"""Running the security cases as an ordinary user: `setpriv` to uid 65534 (no account needed),
and, where the interpreter lives under a folder closed to others (/root on CI's machine), a
private mount namespace in which that user reaches it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from xml.etree import ElementTree

from tests.e2e.helpers import REPO

NOBODY = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]
REACHED = "AGENT_TEST_WITHIN_REACH"


def nobody_can_run_python() -> bool:
    check = "import os, sys; sys.exit(0 if os.access(sys.executable, os.X_OK) else 1)"
    return subprocess.run([*NOBODY, sys.executable, "-c", check], check=False).returncode == 0


def within_reach(keep: Path) -> list[str]:
    """A wrapper: a private mount namespace in which an ordinary user reaches the interpreter,
    which lives under a folder closed to others (/root, on the CI's machine): that folder is
    replaced by an empty one that holds only the way on, bound from the real one."""
    path = Path(os.path.realpath(sys.executable))
    closed = next(p for p in reversed(path.parents) if not p.stat().st_mode & 0o001)
    way = closed / path.relative_to(closed).parts[0]
    steps = 'mount --bind "$1" "$3" && mount -t tmpfs -o mode=755 tmpfs "$2" && mkdir "$1"'
    steps += ' && mount --bind "$3" "$1" && shift 3 && exec "$@"'
    unshare = ["unshare", "-m", "--propagation", "private"]
    return [*unshare, "sh", "-c", steps, "sh", str(way), str(closed), str(keep)]


def pytest_as_nobody(
    files: list[str], keep: Path
) -> tuple[subprocess.CompletedProcess[str], dict[str, int]]:
    """`pytest files` run by uid 65534 (from root), the interpreter put within its reach when it
    is not; the run's tmp folders are that user's own (outside root's closed pytest folders).
    With the run, its counts: tests, failures, errors, skipped (from its JUnit report)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONPYCACHE"))}
    base = Path(tempfile.mkdtemp(prefix="agent-nobody-"))
    try:
        os.chown(base, 65534, 65534)
        report = base / "junit.xml"
        done = _run(files, keep, base, env, (f"--junitxml={report}",))
        return done, _counts(report)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _counts(report: Path) -> dict[str, int]:
    if not report.is_file():
        return {}
    suite = ElementTree.parse(report).getroot().find("testsuite")
    names = ("tests", "failures", "errors", "skipped")
    return {} if suite is None else {k: int(suite.get(k, "0")) for k in names}


def _run(
    files: list[str], keep: Path, base: Path, env: dict[str, str], extra: tuple[str, ...]
) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "pytest", *files, "-p", "no:cacheprovider", "-p", "no:xdist"]
    argv += ["-q", "-rs", f"--basetemp={base / 'run'}", *extra]
    wrapper = [] if nobody_can_run_python() else within_reach(keep)
    env.update({REACHED: "1", "HOME": str(base), "TMPDIR": str(base)})
    return subprocess.run(
        [*wrapper, *NOBODY, *argv], cwd=REPO, env=env, capture_output=True, text=True,
        check=False,
    )  # fmt: skip
