"""The prompt a rewound conversation gives back: the whole first text of the turn's user
message, read after the checkpoint's cut; the index's one line when the transcript is gone."""

from __future__ import annotations

import json
from pathlib import Path

from agent_cli.core.files.paths import Paths
from agent_cli.ext.checkpoints.conversation import prompt_at
from agent_cli.ext.checkpoints.records import Checkpoint


def checkpoint(at: int) -> Checkpoint:
    return Checkpoint(
        id="c1", session_id="s", turn=2, kind="turn", prompt="first line", commit="x",
        tree="y", transcript_bytes=at,
    )  # fmt: skip


def write(paths: Paths, records: list[object]) -> int:
    """The transcript; returns the size of all but its last two records (the turn's cut)."""
    path = paths.transcript("s")
    path.parent.mkdir(parents=True)
    lines = [json.dumps(r).encode() + b"\n" for r in records]
    path.write_bytes(b"".join(lines))
    return sum(len(line) for line in lines[:-2])


def test_the_whole_prompt_not_its_attachments(tmp_path: Path):
    paths = Paths(tmp_path)
    prompt = "first line\nsecond line of the prompt"
    blocks = [{"type": "text", "text": prompt}, {"type": "text", "text": "Contents of @a.py:\nx"}]
    cut = write(
        paths,
        [
            {"type": "session", "id": "s"},
            {"type": "message", "message": {"role": "user", "content": "earlier"}},
            {"type": "message", "message": {"role": "user", "content": blocks}},
            {"type": "message", "message": {"role": "assistant", "content": "ok"}},
        ],
    )
    assert prompt_at(paths, checkpoint(cut)) == prompt


def test_a_lost_or_broken_transcript_gives_the_index_line(tmp_path: Path):
    paths = Paths(tmp_path)
    assert prompt_at(paths, checkpoint(0)) == "first line"
    paths.transcript("s").parent.mkdir(parents=True)
    paths.transcript("s").write_bytes(b"not json\n")
    assert prompt_at(paths, checkpoint(0)) == "first line"
