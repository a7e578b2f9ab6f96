"""The streaming redactor: a secret (or any form of it `redact` knows) split across pieces at
any place is masked as if the text had come whole, and nothing shown ever holds one."""

from __future__ import annotations

import string
from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from agent_cli.core.text.redaction import MASK, redact, variants
from agent_cli.core.text.stream_redaction import StreamRedactor
from tests.conftest import FAKE_API_KEY

KEY = FAKE_API_KEY
KEY_CHARS = string.ascii_letters + string.digits + "-_"


def pieces(text: str, cuts: list[int]) -> list[str]:
    at = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in pairwise(at)]


def shown(redactor: StreamRedactor, parts: list[str]) -> list[str]:
    """What a reader has after each piece, the stream's end last."""
    out, seen = "", []
    for part in parts:
        out += redactor.feed(part)
        seen.append(out)
    seen.append(out + redactor.cut())
    return seen


def leaks(text: str, secret: str) -> list[str]:
    return [form for form in variants(secret) if form in text]


@st.composite
def texts_with_a_secret(draw: st.DrawFn) -> tuple[str, str, str]:
    """(secret, text, form): the text holds the form once somewhere, among near misses (starts
    of it, of other forms, the secret's own characters)."""
    secret = draw(st.text(KEY_CHARS, min_size=8, max_size=40))
    form = draw(st.sampled_from(variants(secret)))
    near = st.sampled_from([f[:n] for f in variants(secret) for n in (1, 2, len(f) // 2, -1)])
    noise = st.lists(st.one_of(st.text(KEY_CHARS + " .\n", max_size=6), near), max_size=6)
    before, after = "".join(draw(noise)), "".join(draw(noise))
    return secret, before + form + after, form


@given(texts_with_a_secret(), st.lists(st.integers(0, 200), max_size=30))
def test_any_split_shows_what_the_whole_text_redacts_to(
    case: tuple[str, str, str], cuts: list[int]
) -> None:
    secret, text, _form = case
    seen = shown(StreamRedactor([secret]), pieces(text, cuts))
    assert seen[-1] == redact(text, [secret])
    for so_far in seen:
        assert not leaks(so_far, secret), (so_far, text)


@given(texts_with_a_secret())
def test_one_character_at_a_time(case: tuple[str, str, str]) -> None:
    secret, text, _form = case
    seen = shown(StreamRedactor([secret]), list(text))
    assert seen[-1] == redact(text, [secret])
    assert not any(leaks(s, secret) for s in seen)


@given(
    st.text(KEY_CHARS + " ", max_size=30),
    st.integers(1, len(KEY) - 1),
    st.text(KEY_CHARS + " ", max_size=30),
)
def test_a_cut_inside_the_key_does_not_let_the_next_stream_complete_it(
    before: str, at: int, after: str
) -> None:
    """A restarted reply or the next reply: a reader joining every piece sees no key."""
    redactor = StreamRedactor([KEY])
    out = redactor.feed(before + KEY[:at]) + redactor.cut()
    out += redactor.feed(KEY[at:] + after) + redactor.cut()
    assert KEY not in out
    assert out.endswith(after)


def test_only_a_possible_start_of_a_secret_is_held() -> None:
    redactor = StreamRedactor([KEY])
    assert redactor.feed("The key is ") == "The key is "
    assert redactor.feed("sk-te") == ""  # could be the key
    assert redactor.feed("st-k") == ""
    assert redactor.feed("kkk, or not") == "sk-test-kkkk, or not"  # it was not
    assert redactor.feed(f"; {KEY[:20]}") == "; "
    assert redactor.feed(KEY[20:] + " end") == f"{MASK} end"
    assert redactor.cut() == ""


def test_a_whole_key_whose_end_could_start_another_form_is_held_whole() -> None:
    """The key's last k's could begin the reversed key: the cut goes back before the key, not
    into it (else its start would be out and its rest masked later: the key, joined)."""
    redactor = StreamRedactor([KEY])
    assert redactor.feed(KEY + "kk") == ""
    assert redactor.feed(" end") == f"{MASK}kk end"


def test_the_held_start_is_shown_when_the_stream_ends() -> None:
    redactor = StreamRedactor([KEY])
    assert redactor.feed("ask-test") == "a"
    assert redactor.cut() == "sk-test"


def test_a_dropped_stream_gives_its_held_text_and_leaves_nothing_behind() -> None:
    """A stream the user stopped: what it held goes to history, not into the next stream."""
    redactor = StreamRedactor([KEY])
    assert redactor.feed("ask-test") == "a"
    assert redactor.drop() == "sk-test"
    assert redactor.feed("ing") + redactor.cut() == "ing"
    assert redactor.feed("sk-te") + redactor.drop() == "sk-te"  # dropped, not shown
    assert redactor.feed("bask-te") + redactor.cut() == "bask-te"
    assert redactor.feed(KEY[5:]) + redactor.cut() == MASK  # the shown "sk-te" it completes


def test_the_next_stream_completing_a_shown_start_is_masked_there() -> None:
    redactor = StreamRedactor([KEY])
    first = redactor.feed("sk-test-kkkk") + redactor.cut()
    assert first == "sk-test-kkkk"
    second = redactor.feed(KEY[12:20]) + redactor.feed(KEY[20:] + " rest") + redactor.cut()
    assert second == f"{MASK} rest"
    third = redactor.feed("sk-test-") + redactor.feed("not it") + redactor.cut()
    assert third == "sk-test-not it"


def test_encoded_forms_are_held_and_masked_too() -> None:
    hexed = KEY.encode().hex()
    redactor = StreamRedactor([KEY])
    out = "".join(redactor.feed(hexed[i : i + 5]) for i in range(0, len(hexed), 5))
    assert out + redactor.cut() == MASK


def test_without_secrets_text_passes_at_once() -> None:
    redactor = StreamRedactor([])
    assert redactor.feed("sk-te") == "sk-te"
    assert redactor.cut() == ""
    assert StreamRedactor(["short"]).feed("shor") == "shor"  # too short to be masked anywhere
