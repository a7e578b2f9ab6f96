"""A language server for tests, standard library only: `python fake_lsp.py MODE`.

ok: a real LSP exchange; each line holding BROKEN is an error diagnostic.
die-after-publish: as ok, then exits after its first publish (a crash mid-session).
crash: exits before answering anything. silent: reads and never answers. garbage: writes text
that is not LSP, then waits.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any


def send(message: dict[str, Any]) -> None:
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def read() -> dict[str, Any] | None:
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    result: dict[str, Any] = json.loads(sys.stdin.buffer.read(length))
    return result


def publish(uri: str, text: str, version: int | None) -> None:
    found = [
        {
            "range": {"start": {"line": n, "character": line.index("BROKEN")},
                      "end": {"line": n, "character": line.index("BROKEN") + 6}},
            "severity": 1,
            "message": f"BROKEN on line {n + 1}",
            "source": "fake",
        }
        for n, line in enumerate(text.splitlines())
        if "BROKEN" in line
    ]  # fmt: skip
    send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
          "params": {"uri": uri, "version": version, "diagnostics": found}})  # fmt: skip


def serve(die_after_publish: bool) -> None:
    texts: dict[str, str] = {}
    while (message := read()) is not None:
        method, params = message.get("method"), message.get("params") or {}
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": {}}})
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        elif method == "exit":
            return
        elif method in ("textDocument/didOpen", "textDocument/didChange"):
            doc = params["textDocument"]
            text = (
                doc["text"] if method.endswith("didOpen") else params["contentChanges"][-1]["text"]
            )
            texts[doc["uri"]] = text
            publish(doc["uri"], text, doc.get("version"))
            if die_after_publish:
                sys.exit(1)


def main() -> None:
    mode = sys.argv[1]
    if mode == "crash":
        sys.exit(3)
    if mode == "garbage":
        sys.stdout.write("hello, I am not a language server\n")
        sys.stdout.flush()
    if mode in ("silent", "garbage"):
        while sys.stdin.buffer.read(4096):
            pass
        time.sleep(60)
        return
    serve(die_after_publish=mode == "die-after-publish")


if __name__ == "__main__":
    main()
