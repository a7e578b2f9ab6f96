"""A case's checks, split where each can be judged: what lives in the run's tree (a file, a
command) becomes one confined shell check that batch runs in the tree before removing it; what
lives in the conversation (the answer, the tools) is read from the run's transcript."""

from __future__ import annotations

import fnmatch
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from agent_cli.core.messages import blocks_of
from agent_cli.ext.plugins.evaluate.cases import Case, Check
from agent_cli.session.transcript import MessageRecord, read_records

IN_TREE = ("file_exists", "command")
# the last line the tree check writes, on stderr (the tail batch keeps ends with stderr)
MARK = "agent-plugin-eval failed checks:"
# the tools whose input names a plugin's item: a skill (`plugin:skill`), an agent type
NAMED_BY = {"skill": "name", "task": "agent_type"}


def tree_script(case: Case) -> str | None:
    """One shell script for the tree's checks: every one runs (a command in its own `bash -c`,
    so one that does not parse fails alone), and the failed ones' numbers end it."""
    steps: list[str] = []
    for number, check in enumerate(case.checks):
        if check.file_exists is not None:
            test = f"test -e {shlex.quote(check.file_exists)}"
        elif check.command is not None:
            test = f"bash -c {shlex.quote(check.command)} </dev/null 2>&1"
        else:
            continue
        steps.append(f'{test} || failed="$failed {number}"')
    if not steps:
        return None
    end = f'echo "{MARK}$failed" >&2; test -z "$failed"'
    return "\n".join(["failed=", *steps, end])


def failed_in_tree(case: Case, passed: bool, output: str | None) -> list[int] | None:
    """The tree checks that failed, from the script's last line; None when it never said
    (its sandbox was unavailable, it was killed): then all count as failed."""
    if passed:
        return []
    for line in reversed((output or "").splitlines()):
        if line.startswith(MARK):
            return [int(n) for n in line.removeprefix(MARK).split()]
    return None


@dataclass
class Conversation:
    """What a run's transcript says it did."""

    answer: str = ""
    used: set[str] = field(default_factory=set)  # tool names, and the items they named


def read_conversation(transcript: str | None) -> Conversation:
    seen = Conversation()
    if transcript is None or not Path(transcript).is_file():
        return seen
    for record in read_records(Path(transcript)):
        if not isinstance(record, MessageRecord) or record.message.get("role") != "assistant":
            continue
        blocks = blocks_of(record.message)
        texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
        if texts:
            seen.answer = "".join(texts)
        for block in blocks:
            if block.get("type") == "tool_use":
                seen.used |= _names(block)
    return seen


def _names(block: dict[str, object]) -> set[str]:
    name = str(block.get("name", ""))
    names = {name}
    args = block.get("input")
    key = NAMED_BY.get(name)
    if key and isinstance(args, dict) and isinstance(args.get(key), str):
        names.add(args[key].strip().removeprefix("/"))
    return names


def holds(check: Check, seen: Conversation) -> bool:
    if check.answer_matches is not None:
        return re.search(check.answer_matches, seen.answer) is not None
    assert check.tool_used is not None
    return any(fnmatch.fnmatchcase(name, check.tool_used) for name in seen.used)


def failed_in_conversation(case: Case, seen: Conversation) -> list[int]:
    return [
        number
        for number, check in enumerate(case.checks)
        if check.kind not in IN_TREE and not holds(check, seen)
    ]
