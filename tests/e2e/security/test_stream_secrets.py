"""A key the model repeats, split across streamed deltas, never reaches a reader whole (issue 50,
item 15): not the text or thinking events of `agent run --output-format stream-json` once
joined, not an ACP editor's joined message and thought chunks, also when the stream breaks
inside the key and the retried reply completes it. The rest of the text arrives intact."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import text_block

from agent_cli.core.text.redaction import MASK, variants
from tests.conftest import FAKE_API_KEY as KEY
from tests.e2e.acp_client import Editor, agent_acp
from tests.e2e.helpers import json_lines, run_agent
from tests.fake_model import FakeAnthropic
from tests.unit.model.test_thinking_runs import think_on

HEXED = KEY.encode().hex()
THOUGHT = f"The .env file holds {KEY}; I must not repeat it."
SAID = f"Your key is {KEY} (hex {HEXED}), keep it safe."
SAID_SHOWN = f"Your key is {MASK} (hex {MASK}), keep it safe."
THOUGHT_SHOWN = f"The .env file holds {MASK}; I must not repeat it."
CUT_AT = 14  # the first reply breaks after this much of the key; the retried one completes it


def script_replies(fake: FakeAnthropic) -> None:
    """A thinking block and a text block, each in ~3-character deltas, then a reply whose stream
    breaks inside the key and whose retry starts with the key's rest."""
    blocks = [{"type": "thinking", "thinking": THOUGHT}, {"type": "text", "text": SAID}]
    fake.script.reply(blocks, chunks=len(SAID) // 3)
    broken = f"Again: {KEY[:CUT_AT]}"
    # message_start, ping, content_block_start, then its deltas: cut before the block's end
    fake.script.text(broken, chunks=6, drop_after=3 + 6)
    fake.script.text(f"{KEY[CUT_AT:]} is the rest.", chunks=6)


def no_form_of_the_key(text: str) -> None:
    assert [form for form in variants(KEY) if form in text] == [], text


def test_stream_json_text_and_thinking_never_join_into_the_key(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    think_on(Path(fake_env["HOME"]))
    script_replies(fake_model)
    first = run_agent(
        fake_env, tmp_path, "run", "-p", "what is my key?", "--output-format", "stream-json"
    )
    assert first.returncode == 0, first.stderr
    events = json_lines(first.stdout)
    text = "".join(e["text"] for e in events if e["type"] == "text")
    thinking = "".join(e["text"] for e in events if e["type"] == "thinking")
    assert len([e for e in events if e["type"] == "text"]) > 5  # shown as it came, in pieces
    assert text == SAID_SHOWN
    assert thinking == THOUGHT_SHOWN
    no_form_of_the_key(first.stdout)

    again = run_agent(
        fake_env, tmp_path, "run", "-c", "-p", "again?", "--output-format", "stream-json"
    )
    assert again.returncode == 0, again.stderr
    events = json_lines(again.stdout)
    assert any(e["type"] == "stream_restart" for e in events)
    # a reader that does not drop the broken reply's text joins it to the retried one
    joined = "".join(e["text"] for e in events if e["type"] == "text")
    no_form_of_the_key(joined)
    assert joined.startswith(f"Again: {KEY[:CUT_AT]}")
    assert joined.endswith(f"{MASK} is the rest.")
    restart = [e["type"] for e in events].index("stream_restart")
    retried = "".join(e["text"] for e in events[restart:] if e["type"] == "text")
    assert retried == f"{MASK} is the rest."  # what completes the shown start is masked
    (result,) = [e for e in events if e["type"] == "result"]
    assert result["result"] == f"{KEY[CUT_AT:]} is the rest."  # the reply alone: no key


def test_an_acp_editor_joining_the_chunks_never_has_the_key(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    think_on(Path(fake_env["HOME"]))
    script_replies(fake_model)
    editor = Editor()

    async def drive() -> list[str]:
        async with agent_acp(fake_env, tmp_path, editor) as conn:
            session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            stops: list[str] = []
            for prompt in ("what is my key?", "again?"):
                reply = await conn.prompt(
                    session_id=session.session_id, prompt=[text_block(prompt)]
                )
                stops.append(str(reply.stop_reason))
            return stops

    assert asyncio.run(drive()) == ["end_turn", "end_turn"]
    said = "".join(u.content.text for u in editor.updates("agent_message_chunk"))
    thought = "".join(u.content.text for u in editor.updates("agent_thought_chunk"))
    assert thought == THOUGHT_SHOWN
    assert said.startswith(SAID_SHOWN)
    assert said.endswith(f"{MASK} is the rest.")
    no_form_of_the_key(said)
    no_form_of_the_key(thought)
    assert len(editor.updates("agent_message_chunk")) > 5
