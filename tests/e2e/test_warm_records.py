"""Issue 25: after a run through the warm process, the transcript and the logs are complete:
line by line what an in-process run of the same scripted session writes (once the values that
differ between any two runs, the times, ids and the workspace's path, are masked)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.helpers import run_agent
from tests.e2e.warm import Warm
from tests.fake_model import FakeAnthropic

VARYING = [
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d[.,]\d+(\+00:00)?"), "<time>"),
    (re.compile(r"\d{8}-\d{6}-[0-9a-f]{6}"), "<session>"),
    (re.compile(r'"latency_s": [\d.]+'), '"latency_s": <s>'),
    (re.compile(r"toolu_[A-Za-z0-9]+"), "<tool-id>"),
    (re.compile(r"\b\d+(\.\d+)? ?(ms|s)\b"), "<duration>"),
    # a call record's hash of the system prompt's environment section, which holds the path
    (re.compile(r'\["environment","[0-9a-f]+"\]'), '["environment","<hash>"]'),
]


def records(workspace: Path) -> dict[str, list[str]]:
    files = [*sorted((workspace / ".transcripts").glob("*.jsonl"))]
    files += [workspace / "logs" / "agent.log", workspace / "logs" / "llm-calls.jsonl"]
    out = {}
    for path in files:
        text = path.read_text().replace(str(workspace), "<workspace>")
        for pattern, mask in VARYING:
            text = pattern.sub(mask, text)
        out[path.parent.name + "/" + (path.name if path.parent.name == "logs" else "session")] = (
            text.splitlines()
        )
    return out


def script(fake_model: FakeAnthropic) -> None:
    fake_model.script.tool_use("read_file", path="a.txt")
    fake_model.script.tool_use("bash", command="echo from-bash; exit 3")
    fake_model.script.text("All done: a.txt holds alpha.")


def test_the_records_match_an_in_process_run(warm: Warm, fake_env: dict[str, str], tmp_path: Path):
    """Each way has a fake model of its own: its prompt cache starts empty for both."""
    warm.start()
    runs = {}
    for way, env in (("in-process", fake_env), ("warm", warm.env)):
        workspace = tmp_path / way[:2]  # paths of one length: the requests' sizes are equal
        workspace.mkdir()
        (workspace / "a.txt").write_text("alpha\n")
        with FakeAnthropic() as model:
            script(model)
            env = {**env, "ANTHROPIC_BASE_URL": model.base_url}
            proc = run_agent(env, workspace, "run", "-p", "look", "--permission-mode", "bypass")
            assert not model.violations
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == "All done: a.txt holds alpha.\n"
        runs[way] = records(workspace)
    assert warm.served() == 1
    assert runs["warm"].keys() == runs["in-process"].keys()
    for name, lines in runs["in-process"].items():
        assert len(lines) > 1, name
        assert runs["warm"][name] == lines, name
