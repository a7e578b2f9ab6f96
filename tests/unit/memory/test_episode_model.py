"""The episode model and the generator's input and output handling."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agent_cli.memory import generator, render
from agent_cli.memory.episode import Episode, EpisodeDraft, relative_path

MINIMAL = {"title": "t", "core_problem": "p"}


def test_every_field_the_model_sees_is_documented():
    schema = EpisodeDraft.model_json_schema()
    for name, prop in schema["properties"].items():
        assert prop.get("description"), name
    change = schema["$defs"]["CodeChange"]["properties"]
    assert all(p.get("description") for p in change.values())
    for name, field in Episode.model_fields.items():
        assert field.description, name


def test_long_text_is_trimmed_wrong_types_refused():
    draft = EpisodeDraft.model_validate(
        {**MINIMAL, "title": "x" * 500, "key_decisions": ["d"] * 40 + [""]}
    )
    assert len(draft.title) == 120
    assert draft.title.endswith("…")
    assert len(draft.key_decisions) == 12
    with pytest.raises(ValidationError):
        EpisodeDraft.model_validate({**MINIMAL, "key_decisions": "one string"})
    with pytest.raises(ValidationError):
        EpisodeDraft.model_validate({"title": "t"})
    with pytest.raises(ValidationError):
        EpisodeDraft.model_validate({**MINIMAL, "surprise": 1})


@pytest.mark.parametrize(
    ("given", "kept"),
    [("a.py#L3-L9", "a.py#L3-L9"), ("a.py#L3", "a.py#L3-L3"), ("src/a.py#L3-9", "src/a.py#L3-L9")],
)
def test_fingerprints_are_normalised(given: str, kept: str):
    draft = EpisodeDraft.model_validate({**MINIMAL, "code_fingerprints": [given]})
    assert draft.code_fingerprints == [kept]


@pytest.mark.parametrize("bad", ["a.py", "a.py#L9-L3", "a.py#10-20", "#L1-L2"])
def test_bad_fingerprints_are_refused(bad: str):
    with pytest.raises(ValidationError):
        EpisodeDraft.model_validate({**MINIMAL, "code_fingerprints": [bad]})


def test_relative_path(tmp_path: Path):
    assert relative_path(str(tmp_path / "src" / "x.py"), tmp_path) == "src/x.py"
    assert relative_path("./src/x.py", tmp_path) == "src/x.py"
    assert relative_path("/elsewhere/y.py", tmp_path) == "/elsewhere/y.py"


def test_parse_draft_tolerates_fences_and_prose():
    body = json.dumps(MINIMAL)
    assert generator.parse_draft(f"Sure!\n```json\n{body}\n```\nDone.").title == "t"
    with pytest.raises(ValueError, match="no JSON object"):
        generator.parse_draft("no json here")
    with pytest.raises(ValueError, match="core_problem"):
        generator.parse_draft('{"title": "t"}')
    with pytest.raises(ValueError, match="does not parse"):
        generator.parse_draft('{"title": }')


def test_generator_input_shortens_results_and_redacts_secrets():
    secret = "sk-secret-" + "z" * 20
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": f"use key {secret}"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "private", "signature": "s"},
                {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "y" * 5_000}],
        },
    ]
    previous = Episode(id="ep-0", session="s", title="Before", core_problem="earlier")
    text = generator.build_input(messages, previous, [previous], [secret])
    assert secret not in text
    assert "[redacted]" in text
    assert '[tool call read_file] {"path": "a"}' in text
    assert "y" * 400 + "… [4600 chars cut]" in text
    assert "private" not in text
    assert '"title": "Before"' in text
    assert "- ep-0: Before" in text


def test_very_long_conversations_keep_start_and_end():
    messages = [
        {"role": "user", "content": [{"type": "text", "text": f"msg-{i} " + "w" * 3_000}]}
        for i in range(60)
    ]
    text = generator.render_conversation(messages)
    assert len(text) < generator.MAX_INPUT_CHARS + 200
    assert "msg-0 " in text
    assert "msg-59 " in text
    assert "characters of the conversation left out" in text


def test_system_prompt_carries_the_schema():
    (block,) = generator.system_prompt(None)
    assert '"code_fingerprints"' in block["text"]
    assert "{schema}" not in block["text"]


def test_system_section_is_compact_reference():
    episodes = [
        Episode(
            id=f"ep-{i}",
            session="s",
            title=f"T{i}",
            core_problem="p" * 1_000,
            open_issues=["o1", "o2"],
            key_decisions=["not shown"],
        )
        for i in range(5)
    ]
    section = render.system_section(episodes)
    assert section.startswith(render.SECTION_HEADING)
    assert "reference only" in section
    assert section.count("- [ep-") == 5
    assert "not shown" not in section
    assert len(section) < 2_500
    assert render.system_section([]) == ""
