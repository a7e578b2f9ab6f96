"""The sandbox's hostile-repository cases, green as root in this run, again as an ordinary user
(issue 50: what an unprivileged user's sandbox holds may differ from root's)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.e2e.security.nobody import REACHED, pytest_as_nobody

FILES = [
    "tests/e2e/security/test_sandbox_boundary.py",
    "tests/e2e/security/test_sandbox_git.py",
    "tests/e2e/security/test_check_boundary.py",
]


@pytest.mark.timeout(900)
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_the_sandbox_cases_hold_for_an_ordinary_user(tmp_path: Path) -> None:
    if os.geteuid() != 0 or os.environ.get(REACHED):
        pytest.skip("only root can become an ordinary user (this run may be that user's)")
    done, counts = pytest_as_nobody(FILES, tmp_path)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert counts["tests"] >= 20, counts  # every case of the three files ran ...
    assert counts["failures"] == counts["errors"] == 0, counts
    # ... and none was skipped but those that are root's alone
    assert counts["skipped"] <= 1, (counts, done.stdout[-3000:])
