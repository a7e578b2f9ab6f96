"""What installed project files cost every request: the first request's input tokens with 50
skills and 30 slash commands installed, beside none, in one run (SPEC: skills send only their
name, description and location; commands send nothing until invoked).

    python bench/project_tokens.py [--json]

Through the real CLI and SDK against the test model server, whose input-token figure is the
request's JSON characters / 4 (no tokenizer offline). Skill descriptions are 120-900 characters,
as real ones run (the block caps each at `project_files.skill_description_chars`). Exits 1 when
the difference is over 2,500 tokens.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from common import Figure, agent_env, report, run_agent

from tests.fake_model import FakeAnthropic
from tests.fake_model.usage import estimate_tokens

TARGET = 2_500
TOPICS = [
    "database migrations",
    "release notes",
    "docker images",
    "react components",
    "terraform plans",
    "security review",
    "flaky tests",
    "API docs",
    "i18n strings",
    "performance profiles",
]


def install(workspace: Path, skills: int, commands: int) -> None:
    for n in range(skills):
        topic = TOPICS[n % len(TOPICS)]
        folder = workspace / ".claude" / "skills" / f"{topic.replace(' ', '-')}-{n}"
        folder.mkdir(parents=True)
        description = (
            f"Guidance for {topic} (variant {n}): use when the user works on {topic}, "
            "asks how this repository handles them, or a change touches them. "
        )
        description = (description * (1 + n % 8))[: 120 + (n * 37) % 780]
        body = f"# {topic}\n" + "Step by step instructions.\n" * 200
        (folder / "SKILL.md").write_text(
            f"---\nname: {folder.name}\ndescription: {description}\n"
            f"allowed-tools: Read, Grep\n---\n{body}"
        )
    for n in range(commands):
        folder = workspace / ".claude" / "commands" / ("team" if n % 3 == 0 else "")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"cmd-{n}.md").write_text(
            f"---\ndescription: Command number {n} for {TOPICS[n % len(TOPICS)]}\n"
            f"argument-hint: [target]\nallowed-tools: Bash(git status:*)\n---\n"
            + "Do the thing to $ARGUMENTS.\n"
            * 50
        )


def first_request_tokens(server: FakeAnthropic, workspace: Path, home: Path) -> int:
    before = len(server.bodies())
    server.script.text("ok")
    proc = run_agent(agent_env(server.base_url, str(home)), workspace, "run", "-q", "-p", "hello")
    if proc.returncode != 0:
        sys.exit(f"agent run failed: {proc.stderr}")
    return estimate_tokens(server.bodies()[before])  # the whole input, cached or not


def main() -> int:
    as_json = "--json" in sys.argv[1:]
    out = sys.stderr if as_json else sys.stdout
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropic() as server:
        root = Path(tmp)
        figures: dict[str, int] = {}
        for label, skills, commands in (("none", 0, 0), ("50 skills + 30 commands", 50, 30)):
            workspace = root / label.replace(" ", "-")
            workspace.mkdir()
            install(workspace, skills, commands)
            figures[label] = first_request_tokens(server, workspace, root)
    base, full = figures["none"], figures["50 skills + 30 commands"]
    for label, tokens in figures.items():
        print(f"{label:<28} first request {tokens:>7,} input tokens", file=out)
    extra = full - base
    print(f"{'difference':<28} {extra:>21,} tokens (target ≤ {TARGET:,})", file=out)
    figure = Figure.of(
        "project files: extra input tokens, first request",
        [extra],
        "tok",
        f"{full:,} vs {base:,} (target ≤ {TARGET:,} more)",
        extra <= TARGET,
    )
    return report([figure], as_json)


if __name__ == "__main__":
    sys.exit(main())
