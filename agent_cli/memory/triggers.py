"""When to write an episode (SPEC §10): pure rules, no model call.

- the todo list became all completed;
- the model finished a turn that changed files, and the user's next message says the work is done
  or turns to another topic (keyword rules plus a word-overlap test);
- a length threshold since the last episode (tool rounds or estimated tokens);
- an explicit request (/remember) — the caller needs no rule for that.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from agent_cli.context.prefix_sums import PrefixSums
from agent_cli.core.image_rules import without_images
from agent_cli.core.messages import Message
from agent_cli.core.payloads import TodoItem
from agent_cli.core.settings.features import MemorySettings

Trigger = Literal["todos", "done", "topic", "length", "remember", "retry"]

_DONE = re.compile(
    r"\b(done|finished|complete[d]?|fixed|works|working( now)?|lgtm|looks good|all good|"
    r"perfect|great|thanks|thank you|ship it|good job|nice|solved)\b"
    r"|完成|搞定|好了|可以了|谢谢|没问题",
    re.IGNORECASE,
)
_NOT_DONE = re.compile(
    r"\b(not|never|still|yet|almost|nearly|but)\b|\w+n't\b|"
    r"还没|没有|不行|不对|失败",
    re.IGNORECASE,
)
_SHIFT = re.compile(
    r"^\W*(ok(ay)?|good|great|thanks)?[\s,.!]*(next|now)\b|"
    r"\b(let'?s move on|moving on|another (thing|task|question|topic)|new (task|topic)|"
    r"switch(ing)? to|something (else|different)|different (topic|task|question)|unrelated|"
    r"on another note|change of topic)\b|接下来|下一个|换个|另外一个",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}|[\u4e00-\u9fff]{2,}")
_STOP_TEXT = (
    "the and for with that this from have has had you your are was were can could would should "
    "will not but all any its into also then than them they what when where which who why how "
    "please let lets make sure just now some more there here does did done our out use using "
    "need want like about after before again very much well okay yes"
)
STOP_WORDS = frozenset(_STOP_TEXT.split())
MIN_WORDS_FOR_OVERLAP = 4


def all_completed(todos: Sequence[TodoItem]) -> bool:
    return bool(todos) and all(t.status == "completed" for t in todos)


def todos_completed(old: Sequence[TodoItem], new: Sequence[TodoItem]) -> bool:
    """The new list is all completed and that is news (not the same finished list again)."""
    if not all_completed(new):
        return False
    same = [t.content for t in old] == [t.content for t in new]
    return not (all_completed(old) and same)


def says_done(text: str) -> bool:
    """'done', 'works now, thanks', 'lgtm' — but not 'not done yet' or 'still failing'."""
    return bool(_DONE.search(text)) and not _NOT_DONE.search(text)


def content_words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)} - STOP_WORDS


def context_words(texts: Iterable[str], files: Iterable[Path]) -> set[str]:
    """The words a follow-up on the same work would likely share: the turn's prompt and answer,
    and the changed files' names."""
    words: set[str] = set()
    for text in texts:
        words |= content_words(text)
    for path in files:
        words |= content_words(" ".join([path.stem, path.parent.name]))
    return words


def changes_topic(text: str, context: set[str]) -> bool:
    """An explicit turn ('next, ...', 'moving on', 'new task') or a message of several content
    words none of which occurred in the previous turn's context."""
    if _SHIFT.search(text):
        return True
    words = content_words(text)
    return len(words) >= MIN_WORDS_FOR_OVERLAP and not (words & context)


def next_message_trigger(text: str, files_changed: bool, context: set[str]) -> Trigger | None:
    """The rule for the user's message after a turn: only a turn that changed files counts."""
    if not files_changed:
        return None
    if says_done(text):
        return "done"
    if changes_topic(text, context):
        return "topic"
    return None


def estimate_tokens(messages: list[Message]) -> int:
    """About 4 characters a token (an image by its pixels): a threshold needs no tokenizer.
    The characters are those of the list's JSON, "[" + ", ".join(items) + "]", added up from
    each message's own (kept per message: this is asked after every round)."""
    chars = 2 + _CHARS(messages) + 2 * max(0, len(messages) - 1)
    return _IMAGES(messages) + chars // 4


# Messages are never changed in place (see context/tokens.py): a size is kept per message object.
_SIZES: dict[int, tuple[Message, tuple[int, int]]] = {}
_SIZES_LIMIT = 512


def _message_size(message: Message) -> tuple[int, int]:
    """The characters of the message's JSON (its images left out) and its images' tokens."""
    hit = _SIZES.get(id(message))
    if hit is not None and hit[0] is message:
        return hit[1]
    value, images = without_images(message)
    size = (len(json.dumps(value, ensure_ascii=False)), images)
    if len(_SIZES) >= _SIZES_LIMIT:
        _SIZES.clear()
    _SIZES[id(message)] = (message, size)  # holding the message keeps its id from being reused
    return size


# since the last episode, summed as it grows (asked after every round): only new messages' sizes
_CHARS: PrefixSums[Message] = PrefixSums(lambda m: _message_size(m)[0])
_IMAGES: PrefixSums[Message] = PrefixSums(lambda m: _message_size(m)[1])


def length_reached(rounds: int, tokens: int, settings: MemorySettings) -> bool:
    return rounds >= settings.episode_rounds or tokens >= settings.episode_tokens
