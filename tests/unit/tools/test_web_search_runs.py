"""The API's web search server tool, end to end: `agent run`, the real SDK, the fake model
playing server_tool_use, web_search_tool_result, cited text and a pause_turn.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.helpers import json_lines
from tests.fake_model import FakeAnthropic, Script
from tests.fake_model.web import cited, searched
from tests.in_process import run_cli

MODEL = "claude-sonnet-4-6"
CHANGELOG = ("httpx changelog", "https://www.python-httpx.org/changelog/")
RELEASE = ("Release 0.28.0", "https://github.com/encode/httpx/releases/tag/0.28.0")


def canonical(value: Any) -> str:
    """The bytes a block is, whatever the key order: what must come back unchanged."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def without_cache_control(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in b.items() if k != "cache_control"} for b in blocks]


def write_settings(workspace: Path, **extra: Any) -> None:
    (workspace / ".agent").mkdir(exist_ok=True)
    settings = {"web": {"search": True}, **extra}
    (workspace / ".agent" / "settings.json").write_text(json.dumps(settings))


def script_search_with_pause(fake: FakeAnthropic) -> None:
    fake.script.reply(
        [
            {"type": "text", "text": "Let me look that up."},
            *searched("httpx 0.28 changelog", [CHANGELOG, RELEASE], page_age="2 weeks ago"),
        ],
        stop_reason="pause_turn",
    )
    fake.script.reply(
        [
            *searched("httpx 0.28 proxies argument", [RELEASE]),
            cited(
                "httpx 0.28 removed the deprecated proxies argument.",
                [(RELEASE[1], RELEASE[0], "Remove the deprecated proxies argument")],
            ),
            cited(
                "Use mounts or proxy= instead.",
                [(CHANGELOG[1], CHANGELOG[0], "use proxy="), (RELEASE[1], RELEASE[0], "mounts")],
            ),
        ],
    )


def run(fake_env: dict[str, str], workspace: Path, prompt: str, *more: str) -> list[dict]:
    proc = run_cli(
        fake_env,
        workspace,
        "run",
        "-p",
        prompt,
        "--model",
        MODEL,
        "--output-format",
        "stream-json",
        *more,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json_lines(proc.stdout)


def test_a_paused_search_is_continued_and_its_blocks_come_back_unchanged(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.web_search_supported = True
    write_settings(tmp_path)
    script_search_with_pause(fake_model)
    events = run(fake_env, tmp_path, "what changed in httpx 0.28?")

    first, second = fake_model.bodies()
    paused, finished = fake_model.replies
    assert first["tools"][-1] == {
        "type": "web_search_20250305",
        "name": "web_search",
        "max_uses": 5,
        "cache_control": {"type": "ephemeral"},
    }
    # the continuation sends the paused reply back as it came, as the last message
    assert second["messages"][:-1] == without_cache_control_messages(first["messages"])
    assert second["messages"][-1]["role"] == "assistant"
    sent_back = without_cache_control(second["messages"][-1]["content"])
    assert canonical(sent_back) == canonical(paused["content"])
    assert "<system-reminder>" not in json.dumps(second)

    # shown: each search with its query and titles, the sources numbered as in the text
    ends = [e for e in events if e["type"] == "tool_end" and e["name"] == "web_search"]
    assert [e["summary"] for e in ends] == [
        'web_search "httpx 0.28 changelog": 2 results — httpx changelog · Release 0.28.0',
        'web_search "httpx 0.28 proxies argument": 1 result — Release 0.28.0',
    ]
    text = "".join(e["text"] for e in events if e["type"] == "text")
    assert "removed the deprecated proxies argument. [1]" in text
    assert "Use mounts or proxy= instead. [2][1]" in text
    (sources,) = [e for e in events if e["type"] == "sources"]
    assert sources["sources"] == [
        {"n": 1, "title": RELEASE[0], "url": RELEASE[1]},
        {"n": 2, "title": CHANGELOG[0], "url": CHANGELOG[1]},
    ]
    # counted and priced: one search per reply, $10 per 1,000 searches
    usage = [e for e in events if e["type"] == "usage"]
    assert [u["web_search_requests"] for u in usage] == [1, 1]
    result = events[-1]
    assert result["usage"]["web_search_requests"] == 2
    tokens_cost = sum(
        (
            r["usage"]["input_tokens"] * 3
            + r["usage"]["output_tokens"] * 15
            + r["usage"].get("cache_read_input_tokens", 0) * 0.3
            + r["usage"].get("cache_creation_input_tokens", 0) * 3.75
        )
        / 1e6
        for r in fake_model.replies
    )
    assert abs(result["cost_usd"] - (tokens_cost + 2 * 0.01)) < 1e-9

    # the transcript holds each reply exactly as received
    (transcript,) = (tmp_path / ".transcripts").glob("*.jsonl")
    stored = [json.loads(line) for line in transcript.read_text().splitlines()]
    replies = [
        r["message"]["content"]
        for r in stored
        if r["type"] == "message" and r["message"]["role"] == "assistant"
    ]
    assert [canonical(c) for c in replies] == [
        canonical(paused["content"]),
        canonical(finished["content"]),
    ]


def without_cache_control_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**m, "content": without_cache_control(m["content"])} for m in messages]


def test_the_blocks_survive_compaction_and_resume(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.web_search_supported = True
    context = {
        "micro_threshold_tokens": 1_000,
        "micro_target_tokens": 500,
        "summary_threshold_tokens": 1_000_000,
        "keep_recent_results": 0,
    }
    write_settings(tmp_path, context=context)
    (tmp_path / "notes.txt").write_text("line of notes\n" * 600)
    script_search_with_pause(fake_model)
    run(fake_env, tmp_path, "what changed in httpx 0.28?")
    paused, finished = fake_model.replies
    searched_turn = canonical([*paused["content"], *finished["content"]])

    fake_model.script.tool_use("read_file", path="notes.txt")
    fake_model.script.tool_use("read_file", path="notes.txt", offset=2)
    fake_model.script.text("Read them.")
    events = run(fake_env, tmp_path, "read notes.txt twice", "--continue")
    assert {e["stage"] for e in events if e["type"] == "compaction"} == {"micro"}
    after_compaction = fake_model.bodies()[-1]
    assert "[Earlier tool result saved at" in json.dumps(after_compaction)
    assert (
        canonical(without_cache_control(after_compaction["messages"][1]["content"]))
        == searched_turn
    )

    fake_model.script.text("Still here.")
    run(fake_env, tmp_path, "and now?", "--continue")
    resumed = fake_model.bodies()[-1]
    assert canonical(without_cache_control(resumed["messages"][1]["content"])) == searched_turn


def test_an_endpoint_without_server_tools_is_not_offered_search(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    write_settings(tmp_path)  # fake_model has no models API: no capability, no search
    fake_model.script.text("No search here.")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "search the web", "--model", MODEL)
    assert proc.returncode == 0, proc.stderr
    (body,) = fake_model.bodies()
    assert [t["name"] for t in body["tools"] if t.get("type")] == []
    assert proc.stderr.count("offers no web search") == 1
    assert (
        "warning: web.search is on, but 127.0.0.1 offers no web search for "
        f"{MODEL}: search is not offered." in proc.stderr
    )


def test_search_is_not_declared_unless_enabled(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.web_search_supported = True
    fake_model.script.text("ok")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "hi", "--model", MODEL)
    assert proc.returncode == 0, proc.stderr
    (body,) = fake_model.bodies()
    names = [t["name"] for t in body["tools"]]
    assert "web_search" not in names
    assert "web_fetch" in names  # the client-side tool is on by default
    assert fake_model.bodies(path=None)[0] == body  # no capability question was asked


def test_a_continuation_cut_off_mid_search_leaves_a_session_that_goes_on(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.web_search_supported = True
    write_settings(tmp_path)
    running = searched("httpx 0.28", [CHANGELOG])[:1]  # paused while the search runs
    fake_model.script.reply(
        [{"type": "text", "text": "Searching."}, *running], stop_reason="pause_turn"
    )
    fake_model.script.error(400, message="fake: the continuation fails")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "look it up", "--model", MODEL)
    assert proc.returncode == 1
    assert fake_model.bodies()[-1]["messages"][-1]["content"][-1]["type"] == "server_tool_use"

    fake_model.script.text("Going on without it.")
    events = run(fake_env, tmp_path, "go on", "--continue")
    assert events[-1]["result"] == "Going on without it."
    resumed = fake_model.bodies()[-1]  # valid (the fake server checks): the open call is gone
    assert without_cache_control(resumed["messages"][1]["content"]) == [
        {"type": "text", "text": "Searching."}
    ]


def test_a_busy_models_api_is_asked_again_on_the_next_request(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    write_settings(tmp_path)
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_model.models_error = 529

    def recovered(body: dict[str, Any]) -> Any:
        fake_model.models_error, fake_model.web_search_supported = None, True
        return Script().tool_use("read_file", path="a.txt")

    fake_model.script.respond(recovered).text("done")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "read a.txt", "--model", MODEL)
    assert proc.returncode == 0, proc.stderr
    first, second = fake_model.bodies()
    assert "web_search" not in [t["name"] for t in first["tools"]]
    assert second["tools"][-1]["name"] == "web_search"
    models = [r.path for r in fake_model.requests if r.path.startswith("/v1/models/")]
    assert models == [f"/v1/models/{MODEL}"] * 2
