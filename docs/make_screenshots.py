"""Regenerate docs/chat-140x45.txt and docs/chat-80x24.txt: the real `agent chat` in a pseudo-terminal against the fake model
server, captured as the screen a person sees (plain text: pyte keeps characters, not colours).

    python docs/make_screenshots.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))

from tests.e2e.test_chat_resume import write_session  # noqa: E402
from tests.fake_model import FakeAnthropic  # noqa: E402
from tests.e2e.pty_screen import ChatTerm  # noqa: E402

REPLY = (
    "The retry logic is in two places:\n\n"
    "1. **The SDK** retries 429/5xx/529 itself (`max_retries` from settings).\n"
    "2. **The loop** re-sends a request whose stream broke mid-reply.\n\n"
    "I'll run the tests that cover both.\n\n"
)


def env_for(server: FakeAnthropic, home: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "ANTHROPIC_AUTH_TOKEN")}
    env.update(ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="sk-test-" + "k" * 32,
               HOME=home)
    return env


def capture(columns: int, lines: int, running: bool) -> str:
    with tempfile.TemporaryDirectory() as ws, FakeAnthropic() as server:
        write_session(Path(ws))
        server.script.reply(
            [{"type": "text", "text": REPLY},
             {"type": "tool_use", "name": "bash", "input": {"command": "sleep 4; echo 12 passed"}}]
        ).text("All 12 tests pass: both retry paths are covered.")
        term = ChatTerm(env_for(server, ws), Path(ws), "--continue", "--permission-mode",
                        "bypass", columns=columns, lines=lines)
        try:
            term.wait_for("you>")
            term.type("where do retries happen, and are they tested?")
            if running:
                term.wait_for(lambda t: "bash sleep 4" in t and "mode bypass" in t)
                time.sleep(0.5)
                term.pump()
                return term.text()
            # a whole frame: the answer committed and the bottom region drawn again below it
            return term.wait_for(lambda t: "All 12 tests pass" in t and "mode bypass" in t
                                 and "working…" not in t)
        finally:
            term.close()


def main() -> None:
    (DOCS / "chat-140x45.txt").write_text(capture(140, 45, running=True) + "\n")
    (DOCS / "chat-80x24.txt").write_text(capture(80, 24, running=False) + "\n")


if __name__ == "__main__":
    main()
