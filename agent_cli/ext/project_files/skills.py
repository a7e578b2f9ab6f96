"""Agent Skills: only each skill's name, description and location go into the request (one
cache-stable block); the body is loaded on demand (the `skill` tool, or `/<name>`), stays loaded
for the session and comes back after a summary compaction.

`why(prompt)` shows which skills' descriptions match a prompt and on which words: skills that
silently never activate are the commonest complaint about them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from agent_cli.ext.project_files.definitions import Definition

WORD = re.compile(r"[a-z0-9][a-z0-9+#.-]*[a-z0-9+#]|[a-z0-9]")
STOP = frozenset(
    (
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "use",
        "used",
        "uses",
        "using",
        "when",
        "with",
        "you",
        "your",
        "what",
        "which",
        "will",
        "can",
        "do",
        "does",
        "should",
        "into",
        "any",
        "all",
        "its",
    )
)


def model_skills(skills: dict[str, Definition]) -> list[Definition]:
    return [s for s in skills.values() if s.meta.get("model_invocable", True)]


def location(skill: Definition, workspace: Path) -> str:
    path = Path(skill.path)
    try:
        return str(path.relative_to(workspace))
    except ValueError:
        return str(path).replace(str(Path.home()), "~", 1)


def listing(skills: list[Definition], workspace: Path, description_chars: int, cap: int) -> str:
    """The block the request carries, grouped by skills folder, in name order (stable). The
    budget `cap` is shared out: descriptions are clipped so that every skill is listed."""
    if not skills or cap <= 0:
        return ""
    groups: dict[str, list[Definition]] = {}
    for skill in sorted(skills, key=lambda s: s.name):
        folder = str(Path(location(skill, workspace)).parent.parent)
        groups.setdefault(folder, []).append(skill)
    lines = [
        "# Skills",
        "Skills are instructions for particular tasks. When the user's request matches a "
        "skill's description, load it with the `skill` tool before starting; otherwise ignore "
        "them. Each is <folder>/<name>/SKILL.md.",
    ]
    fixed = sum(len(line) + 1 for line in lines) + sum(len(g) + 12 for g in groups)
    share = (cap - fixed) // len(skills)
    for folder, members in groups.items():
        lines.append(f"In {folder}/:")
        lines += [_line(s, min(description_chars, share - len(s.name) - 4)) for s in members]
    text = "\n".join(lines)
    return text if len(text) <= cap else text[: cap - 30].rsplit("\n", 1)[0] + "\n- ... (more)"


def _line(skill: Definition, allowance: int) -> str:
    folder = Path(skill.path).parent.name
    where = f" [folder {folder}]" if folder != skill.name else ""
    return f"- {skill.name}{where}: {_clip(skill.description, max(40, allowance))}"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def skill_prompt(skill: Definition) -> str:
    folder = skill.meta.get("folder", str(Path(skill.path).parent))
    return (
        f"Base directory for this skill: {folder}\n(files it mentions are relative to it: "
        f"read them with `skill` and `file`)\n\n{skill.body}"
    )


@dataclass
class SkillState:
    """The skills loaded in this session, for the view after a summary."""

    loaded: dict[str, str] = field(default_factory=dict)

    def load(self, skill: Definition) -> str:
        text = skill_prompt(skill)
        self.loaded[skill.name] = text
        return text

    def view(self) -> str:
        if not self.loaded:
            return ""
        parts = ["# Skills loaded earlier in this session (still in effect)"]
        parts += [f"## skill {name}\n{text}" for name, text in self.loaded.items()]
        return "\n\n".join(parts)


def words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in STOP and len(w) > 1}


@dataclass(frozen=True)
class Match:
    name: str
    score: float
    shared: list[str]
    reason: str


def why(prompt: str, skills: list[Definition]) -> list[Match]:
    """Every skill the model is told of, best match first, with the words it shares with the
    prompt (a stem match counts: `tests` meets `testing`)."""
    asked = words(prompt)
    matches = []
    for skill in skills:
        offered = words(f"{skill.name.replace('-', ' ')} {skill.description}")
        shared = sorted(w for w in asked if _meets(w, offered))
        score = len(shared) / max(1, len(asked))
        if shared:
            reason = f"shares {len(shared)} of the prompt's {len(asked)} words: {', '.join(shared)}"
        else:
            reason = "no word of the prompt is in its name or description"
        matches.append(Match(skill.name, round(score, 2), shared, reason))
    return sorted(matches, key=lambda m: (-m.score, m.name))


def _meets(word: str, offered: set[str]) -> bool:
    if word in offered:
        return True
    stem = word[:5]
    return len(stem) >= 4 and any(o.startswith(stem) for o in offered)
