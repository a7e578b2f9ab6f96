"""What `agent attach` shows of a question or a plan the session waits on (the extension
notification `_agent/waiting`, acp_session.py) and how a typed line answers it: a question by
its option's number (several: `1,3`) or in words, one line a question; a plan with `y`
(implement) or `n` and what to change (keep planning)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SHOWN_LINES = 12  # of a plan


class Dialog:
    """The question or plan waiting, and the answers typed so far."""

    def __init__(self, waiting: dict[str, Any], say: Callable[[str], None]) -> None:
        self.waiting, self.say = waiting, say
        self.answers: list[dict[str, Any]] = []
        if waiting["kind"] == "plan":
            for line in str(waiting["plan"]).splitlines()[:SHOWN_LINES]:
                say(f"  │ {line}")
            say("? implement this plan? y: implement  n WHAT TO CHANGE: keep planning")
        else:
            self._next()

    def _next(self) -> None:
        question = self.waiting["questions"][len(self.answers)]
        self.say(f"? {question['header']}: {question['question']}")
        for number, option in enumerate(question["options"], 1):
            about = f" — {option['description']}" if option.get("description") else ""
            self.say(f"  {number}. {option['label']}{about}")
        several = " (several: 1,3)" if question.get("multi_select") else ""
        self.say(f"  a number{several}, or your own answer")

    def take(self, typed: str) -> dict[str, Any] | None:
        """The answer to send once `typed` completes it (the `_agent/answer` params)."""
        typed = typed.strip()
        if not typed:
            return None
        key = self.waiting["key"]
        if self.waiting["kind"] == "plan":
            if typed.lower() in ("y", "yes"):
                return {"key": key, "plan": {"choice": "implement"}}
            change = typed[2:] if typed.lower().startswith("n ") else typed
            return {"key": key, "plan": {"choice": "keep_planning", "feedback": change}}
        question = self.waiting["questions"][len(self.answers)]
        self.answers.append(_answer(question, typed))
        if len(self.answers) < len(self.waiting["questions"]):
            self._next()
            return None
        return {"key": key, "answers": self.answers}


def _answer(question: dict[str, Any], typed: str) -> dict[str, Any]:
    labels = [str(o["label"]) for o in question["options"]]
    picked = [p.strip() for p in typed.split(",")]
    if all(p.isdigit() and 1 <= int(p) <= len(labels) for p in picked):
        chosen = [labels[int(p) - 1] for p in picked]
        if question.get("multi_select") or len(chosen) == 1:
            return {"question": question["question"], "chosen": chosen}
    return {"question": question["question"], "typed": typed}
