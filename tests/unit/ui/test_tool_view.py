"""The Ctrl-O view of tool calls: it opens at the newest call, Home and End go to the first and
last line, tabs are spaces and JSON is indented (issue 37). Driven through prompt-toolkit's own
input pipe, as keys a terminal sends."""

from __future__ import annotations

import asyncio
import json

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from agent_cli.core.events import ToolEnd, ToolStart
from agent_cli.ui.render.tool_log import ToolLog
from agent_cli.ui.tool_view import tool_view

HOME, END = "\x1b[H", "\x1b[F"


def session_log() -> ToolLog:
    log = ToolLog()
    for n in range(1, 4):
        log.feed(ToolStart(id=f"t{n}", name="bash", input={"command": f"step {n}", "n": n}))
        output = "col\tvalue\n" + "\n".join(f"line {k}" for k in range(40))
        log.feed(
            ToolEnd(
                id=f"t{n}", name="bash", is_error=False, summary=f"bash step {n}", output=output
            )
        )
    log.feed(ToolStart(id="j", name="web_fetch", input={}))
    payload = {"results": [{"title": "a" * 30, "url": "https://example.com/x"}]}
    log.feed(
        ToolEnd(
            id="j", name="web_fetch", is_error=False, summary="fetch", output=json.dumps(payload)
        )
    )
    return log


def cursor_after(text: str, keys: list[str]) -> int:
    async def run() -> int:
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
            app = tool_view(text)
            task = asyncio.ensure_future(app.run_async())
            seen = []
            for key in keys:
                await asyncio.sleep(0.05)
                pipe.send_text(key)
            await asyncio.sleep(0.05)
            buffer = app.layout.current_buffer
            assert buffer is not None
            seen.append(buffer.cursor_position)
            pipe.send_text("q")
            await asyncio.wait_for(task, 5)
            return seen[0]

    return asyncio.run(run())


def test_the_view_opens_at_the_newest_call_and_home_end_work():
    text = session_log().text()
    newest = text.index("── 4. ✔ fetch")
    assert cursor_after(text, []) == newest
    assert cursor_after(text, [HOME]) == 0
    assert cursor_after(text, [HOME, END]) == len(text)


def test_the_newest_call_opens_at_the_top_of_the_view_not_its_last_row():
    log = ToolLog()
    for n in range(1, 4):  # each call longer than the screen (DummyOutput: 40 rows)
        log.feed(ToolStart(id=f"t{n}", name="bash", input={"command": f"step {n}"}))
        output = "\n".join(f"line {k}" for k in range(60))
        log.feed(ToolEnd(id=f"t{n}", name="bash", is_error=False, summary=f"s{n}", output=output))
    text = log.text()

    async def first_row() -> int:
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
            app = tool_view(text)
            task = asyncio.ensure_future(app.run_async())
            await asyncio.sleep(0.1)  # drawn once
            row = app.layout.current_window.vertical_scroll
            pipe.send_text("q")
            await asyncio.wait_for(task, 5)
            return row

    assert asyncio.run(first_row()) == text.count("\n", 0, text.index("── 3. "))


def test_tabs_are_spaces_and_json_is_indented():
    text = session_log().text()
    assert "\t" not in text
    assert "col value" in text
    assert '  "results": [' in text  # the output, one JSON value: indented
    assert '"command": "step 1"' in text  # the input too
    assert '\n  "n": 1' in text
