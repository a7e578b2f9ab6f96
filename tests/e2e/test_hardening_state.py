"""Issue 19 finding 15 through the real CLI: settings that are not UTF-8 or absurdly nested, a
state directory that cannot be written, a disk that fills up mid-run: one clear line, never
`internal error` or a logging traceback."""

from __future__ import annotations

import json
import marshal
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.helpers import REPO, run_agent
from tests.fake_model import FakeAnthropic


def _one_clear_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    assert "Logging error" not in stderr
    assert "internal error" not in stderr
    lines = [line for line in stderr.splitlines() if line.startswith("agent:")]
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b'{"model": "caf\xe9"}', "not UTF-8"),
        (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "nested too deeply"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ],
)
def test_unreadable_settings_exit_2_naming_the_file(
    fake_env: dict[str, str], tmp_path: Path, content: bytes, says: str
):
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "settings.json").write_bytes(content)
    proc = run_agent(fake_env, tmp_path, "run", "-p", "hi")
    assert proc.returncode == 2, proc.stderr
    line = _one_clear_line(proc.stderr)
    assert "settings.json" in line
    assert says in line


def test_a_state_directory_that_cannot_be_written_is_one_line(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "blocker").write_text("a file where a folder would go\n")
    state = tmp_path / "blocker" / "state"
    proc = run_agent(
        fake_env, tmp_path, "run", "-p", "hi", "--state-dir", str(state), "--output-format", "json"
    )
    assert proc.returncode == 1, proc.stderr
    line = _one_clear_line(proc.stderr)
    assert "--state-dir" in line
    assert json.loads(proc.stdout)["is_error"] is True
    assert fake_model.bodies() == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_workspace_is_one_line(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = tmp_path / "ws"
    ws.mkdir()
    ws.chmod(0o555)
    try:
        proc = run_agent(fake_env, ws, "run", "-p", "hi")
    finally:
        ws.chmod(0o755)
    assert proc.returncode == 1, proc.stderr
    assert "--state-dir" in _one_clear_line(proc.stderr)


def _small_disk() -> None:
    # files may not grow past 64 KB: writes beyond fail as on a full disk (EFBIG, not a signal)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64_000, 64_000))


def test_a_disk_that_fills_up_mid_run_ends_it_with_one_line_and_a_json_result(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    for i in range(12):
        fake_model.script.tool_use("bash", command=f"printf 'line {i} %.0s' $(seq 800)")
    fake_model.script.text("never reached")
    proc = subprocess.run(
        [sys.executable, "-m", "agent_cli", "run", "-p", "go", "--permission-mode", "bypass",
         "--output-format", "json"],
        cwd=tmp_path,
        # under the limit a module's bytecode is cut at 64 KB, and CPython renames the cut file
        # into place (a short write is not checked): in the suite's shared cache that broke
        # every later run's import of anyio's asyncio backend (CI: 266 failures)
        env={**fake_env, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_small_disk,
        check=False,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    line = _one_clear_line(proc.stderr)
    assert "File too large" in line or "No space" in line
    result = json.loads(proc.stdout)
    assert result["is_error"] is True
    assert result["error"] in line


def test_a_session_id_written_inside_a_transcript_is_never_used_as_a_path(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = tmp_path / "ws"
    (ws / ".transcripts").mkdir(parents=True)
    lines = [
        {"type": "session", "ts": "t", "id": "../../outside/evil", "workspace": str(ws),
         "model": "m"},
        {"type": "message", "ts": "t", "message": {"role": "user", "content": "before"}},
        {"type": "message", "ts": "t", "message": {"role": "assistant", "content": "ok"}},
    ]  # fmt: skip
    transcript = ws / ".transcripts" / "20260101-000000-abcdef.jsonl"
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    fake_model.script.text("resumed")
    proc = run_agent(fake_env, ws, "run", "--continue", "-p", "again", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["session_id"] == transcript.stem
    assert not (tmp_path / "outside").exists()
    assert not list(tmp_path.rglob("evil*"))
    assert "again" in transcript.read_text()


def test_a_run_under_a_file_size_limit_leaves_the_installation_importable(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    """A run under `prlimit --fsize` compiles modules nobody compiled yet: CPython cut their
    bytecode at the limit and renamed it into place, and the next run, limited or not, failed
    to import them. The bytecode cache is the test's own: what the interpreter and the entry
    point import is compiled first (as an installation has it), the run's modules are not."""
    env = {**fake_env, "PYTHONPATH": str(REPO), "PYTHONPYCACHEPREFIX": str(tmp_path / "pyc")}
    fake_model.script.text("under the limit").text("after it")
    argv = [sys.executable, "-m", "agent_cli", "run", "-p", "hi"]
    version = subprocess.run(
        [sys.executable, "-m", "agent_cli", "--version"], env=env, capture_output=True, check=False
    )
    assert version.returncode == 0, version.stderr
    limited = subprocess.run(
        argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
        preexec_fn=_small_disk, check=False,
    )  # fmt: skip
    assert limited.returncode == 0, limited.stderr
    after = subprocess.run(
        argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert after.returncode == 0, after.stderr
    assert "after it" in after.stdout
    cached = list((tmp_path / "pyc").rglob("*.pyc"))
    assert cached, "the unlimited run keeps its bytecode"
    for pyc in cached:
        marshal.loads(pyc.read_bytes()[16:])  # raises on a cut file
