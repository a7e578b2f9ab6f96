"""The long session of the context acceptance test and of bench/context.py: 60 rounds, each
reading a different 6 KB file, under the default settings with the model's window sized down by
a settings file; and the figures measured on its recorded requests."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_cli.core.settings.schema import DEFAULT_MODEL
from tests.fake_model import FakeAnthropic, Script
from tests.fake_model.routing import system_contains
from tests.fake_model.usage import estimate_tokens

ROUNDS = 60
FILE_BYTES = 6_000
WINDOW = 60_000  # tokens; every other threshold derives from it
PROMPT = "Read f00.txt to f59.txt one at a time and tell me which one mentions a kiwi."
SETTINGS: dict[str, Any] = {"context_windows": {DEFAULT_MODEL: WINDOW}}


def make_workspace(root: Path) -> None:
    (root / ".agent").mkdir(parents=True, exist_ok=True)
    (root / ".agent" / "settings.json").write_text(json.dumps(SETTINGS))
    for i in range(ROUNDS):
        line = f"file {i:02d}: the quick brown fox jumps over the lazy dog, entry "
        lines = [f"{line}{n:04d}" for n in range(FILE_BYTES // (len(line) + 5))]
        text = "\n".join(lines)
        (root / f"f{i:02d}.txt").write_text(text + " " * (FILE_BYTES - len(text) - 1) + "\n")


def script_session(server: FakeAnthropic, too_long_at: int | None = None) -> Script:
    """The main script (read every file, then answer); the summariser gets its own route.
    With `too_long_at`, that request (0-based) is refused once as too long."""
    summaries = server.route(system_contains("working summary of a coding-agent conversation"))
    summaries.respond(lambda body: "Read files f00 to fNN; no kiwi yet.", times=20)
    # episodic memory may also write an episode during a long session: give it its own script
    episodes = server.route(system_contains("episodic memory for a coding agent"))
    episodes.respond(lambda body: "not an episode", times=40)
    main = server.script
    for i in range(ROUNDS):
        if i == too_long_at:
            main.prompt_too_long()
        main.tool_use("read_file", path=f"f{i:02d}.txt")
    main.text("None of them mentions a kiwi.")
    return summaries


def main_bodies(server: FakeAnthropic) -> list[dict[str, Any]]:
    return [b for b in server.bodies() if b.get("tools")]


def strip_cache(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip_cache(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache(v) for v in value]
    return value


def size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":")))


@dataclass
class Figures:
    requests: int
    total_chars: int
    naive_chars: int
    largest_chars: int
    largest_tokens: int
    stable: int

    @property
    def share_of_naive(self) -> float:
        return self.total_chars / self.naive_chars

    @property
    def stable_share(self) -> float:
        return self.stable / max(1, self.requests - 1)


def figures(bodies: list[dict[str, Any]]) -> Figures:
    """Sizes of what was sent against an append-only loop that sends every message ever made:
    the newest exchange of each request (results not yet seen are never compacted here) rebuilds
    that loop's history."""
    naive: list[Any] = []
    total = naive_total = stable = 0
    previous: list[Any] | None = None
    for body in bodies:
        messages = strip_cache(body["messages"])
        naive = [messages[0]] if not naive else naive + messages[-2:]
        sent = size(body)
        total += sent
        naive_total += sent - size(body["messages"]) + size(naive)
        if previous is not None and messages[: len(previous)] == previous:
            stable += 1
        previous = messages
    largest = max(bodies, key=size)
    return Figures(
        requests=len(bodies),
        total_chars=total,
        naive_chars=naive_total,
        largest_chars=size(largest),
        largest_tokens=estimate_tokens(largest),
        stable=stable,
    )


def user_texts(body: dict[str, Any]) -> list[str]:
    texts = []
    for message in body["messages"]:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if message["role"] == "user":
            texts += [b["text"] for b in copy.deepcopy(blocks) if b.get("type") == "text"]
    return texts
