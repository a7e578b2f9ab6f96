"""The reference loop: the least any harness on this SDK can do per tool round.

Streams a request, runs each `read_file` call inline, appends the results, repeats. No
transcript, no events, no permissions: the floor `bench/rounds.py` compares the agent against.
Reads ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY like the agent. With a third argument, a JSON file
holding `system`, `tools` and `max_tokens`, it sends those (the agent's own), so both send the
same requests (tool_use ids aside) and only the harness differs.

    python bench/ref_loop.py PROMPT WORKSPACE [REQUEST_SHAPE.json]
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import anthropic

TOOLS = [
    {
        "name": "read_file",
        "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
]


async def main(prompt: str, workspace: Path, shape: dict[str, Any]) -> None:
    client = anthropic.AsyncAnthropic()
    messages: list[Any] = [{"role": "user", "content": [{"type": "text", "text": prompt}]}]
    tools, system = shape.get("tools", TOOLS), shape.get("system", [])
    max_tokens = shape.get("max_tokens", 1024)
    while True:
        async with client.messages.stream(
            model="claude-sonnet-4-6",
            max_tokens=max_tokens,
            messages=messages,
            tools=tools,
            system=system,
        ) as stream:
            async for _ in stream:
                pass
            reply = await stream.get_final_message()
        content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
        messages.append({"role": "assistant", "content": content})
        uses = [b for b in reply.content if b.type == "tool_use"]
        if not uses:
            break
        results = []
        for use in uses:
            path = workspace / str(dict(use.input)["path"])  # type: ignore[call-overload]
            lines = path.read_text().splitlines()
            text = "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, 1))
            results.append({"type": "tool_result", "tool_use_id": use.id, "content": text})
        messages.append({"role": "user", "content": results})
    await client.close()


if __name__ == "__main__":
    shape = json.loads(Path(sys.argv[3]).read_text()) if len(sys.argv) > 3 else {}
    asyncio.run(main(sys.argv[1], Path(sys.argv[2]), shape))
