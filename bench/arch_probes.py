"""Two probes of a real run, for bench/architecture.py: each runs in a process of its own (so the
bench's own imports do not count), against the test model server, in an empty workspace with
no settings, and prints one JSON object.

    python bench/arch_probes.py first-request   # `agent run -p hi`, up to its first request
    python bench/arch_probes.py delta-layers    # `agent chat`'s turn consumer, one text delta

first-request: the agent_cli modules imported and the agent_cli functions run (real ones: code
objects with their own locals, so neither module bodies nor class bodies) when the first
/v1/messages request reaches the server.

delta-layers: when the innermost async generator yields the first TextDelta, the frames of
async generators on the stack (that one included), up to the chat's consumer (ChatCore._drive,
which the screen and the plain REPL share); and how many async-generator frames yielded that
very event object on its way (the same figure unless a task boundary hides some).
"""

from __future__ import annotations

import gc
import inspect
import io
import json
import os
import sys
import tempfile
import threading
from pathlib import Path
from types import FrameType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PACKAGE = str(REPO / "agent_cli") + os.sep
FAKE_KEY = "sk-test-" + "k" * 32


def _prepare() -> Any:
    """The test model server started, answering "hello"; HOME, the workspace and the
    environment as a newcomer's: nothing set."""
    sys.path.insert(0, str(REPO))
    from tests.fake_model import FakeAnthropic

    home, workspace = tempfile.mkdtemp(), tempfile.mkdtemp()
    for name in list(os.environ):
        if name.startswith(("AGENT_", "ANTHROPIC_", "XDG_")) or name == "CI":
            del os.environ[name]
    os.environ.update(HOME=home, NO_COLOR="1", AGENT_NO_SERVER="1", ANTHROPIC_API_KEY=FAKE_KEY)
    os.chdir(workspace)
    return FakeAnthropic


def first_request() -> dict[str, Any]:
    fake_class = _prepare()
    seen: set[tuple[str, int, str]] = set()
    snap: dict[str, Any] = {}

    def profile(frame: FrameType, event: str, arg: object) -> None:
        code = frame.f_code
        mine = not snap and code.co_filename.startswith(PACKAGE)
        # CO_NEWLOCALS: a function's code; module and class bodies have no locals of their own
        if event == "call" and mine and code.co_flags & inspect.CO_NEWLOCALS:
            seen.add((code.co_filename, code.co_firstlineno, code.co_name))

    class Snapshot(fake_class):  # type: ignore[misc, valid-type]
        def answer(self, raw_path: str, headers: Any, raw: bytes) -> Any:
            if not snap and raw_path.startswith("/v1/messages"):
                snap["modules"] = sorted(m for m in sys.modules if m.startswith("agent_cli"))
                snap["functions"] = sorted(seen)
            return super().answer(raw_path, headers, raw)

    fake = Snapshot().start()
    fake.script.text("hello")
    os.environ["ANTHROPIC_BASE_URL"] = fake.base_url
    sys.setprofile(profile)
    threading.setprofile(profile)  # type: ignore[arg-type]
    try:
        from agent_cli.cli.entry import run_in_process

        out, sys.stdout = sys.stdout, io.StringIO()
        try:
            code = run_in_process(["run", "-p", "hi"])
        finally:
            sys.stdout = out
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
        fake.stop()
    functions = snap.get("functions", [])
    return {
        "exit": code,
        "modules": snap.get("modules", []),
        "functions": len(functions),
        "function_files": len({f for f, _, _ in functions}),
    }


def _where(frame: FrameType) -> str:
    code = frame.f_code
    file = os.path.relpath(code.co_filename, REPO) if code.co_filename.startswith(PACKAGE) else ""
    return f"{file or Path(code.co_filename).name}:{code.co_name}"


def delta_layers() -> dict[str, Any]:
    fake_class = _prepare()
    from agent_cli.core.events import TextDelta

    found: dict[str, Any] = {"yielders": []}

    def trace(frame: FrameType, event: str, arg: object) -> Any:
        if event == "call":
            return trace if frame.f_code.co_flags & inspect.CO_ASYNC_GENERATOR else None
        if event != "return" or arg is None:
            return trace
        delta = next((x for x in gc.get_referents(arg) if isinstance(x, TextDelta)), None)
        if delta is None:
            return trace
        if "event" not in found:
            found["event"] = id(delta)
            found["stack"] = _stack(frame)
        if found["event"] == id(delta):
            found["yielders"].append(_where(frame))
        return trace

    fake = fake_class().start()
    fake.script.text("hello")
    os.environ["ANTHROPIC_BASE_URL"] = fake.base_url
    sys.stdin = io.StringIO("hi\n")  # not a terminal: the plain REPL, on ChatCore's driving
    out, sys.stdout = sys.stdout, io.StringIO()
    sys.settrace(trace)
    threading.settrace(trace)
    try:
        from agent_cli.cli.entry import run_in_process

        code = run_in_process(["chat"])
    finally:
        sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type]
        sys.stdout = out
        fake.stop()
    stack = found.get("stack", [])
    generators = [name for name, is_generator in stack if is_generator]
    return {
        "exit": code,
        "layers": len(generators),
        "generators": generators,
        "consumer": next((n for n, g in stack if not g and n.endswith(":_drive")), ""),
        "yielders": found["yielders"],
    }


def _stack(frame: FrameType | None) -> list[tuple[str, bool]]:
    """(where, is an async generator) from the innermost frame out."""
    found = []
    while frame is not None:
        found.append((_where(frame), bool(frame.f_code.co_flags & inspect.CO_ASYNC_GENERATOR)))
        frame = frame.f_back
    return found


def main() -> int:
    probe = {"first-request": first_request, "delta-layers": delta_layers}[sys.argv[1]]
    result = probe()
    sys.__stdout__.write(json.dumps(result) + "\n")  # type: ignore[union-attr]
    sys.__stdout__.flush()  # type: ignore[union-attr]
    os._exit(0)  # no teardown: what the run started is not the probe's to wait for


if __name__ == "__main__":
    sys.exit(main())
