"""The plan dialog keeps the reader's place through a resize (issue 56): at the end it stays at
the end, elsewhere it stays at the same part of the plan, however the lines re-wrap."""

from __future__ import annotations

import asyncio

from agent_cli.ui.dialogs.plan_dialog import PlanDialog

WORDS = [f"step {n:02d}: " + "word " * 30 for n in range(1, 41)]  # 40 steps of ~160 characters


def wrapped(width: int) -> list[str]:
    lines: list[str] = []
    for step in WORDS:
        lines += [step[i : i + width] for i in range(0, len(step), width)]
    return lines


def heading_after(scroll: int, columns: list[int]) -> tuple[str, str]:
    """The heading after scrolling `scroll` lines at columns[0], then resizing to each width."""

    async def scenario() -> tuple[str, str]:
        size = {"columns": columns[0]}
        dialog = PlanDialog(lambda: None, lambda: size["columns"], lambda: 24)
        answer = asyncio.ensure_future(dialog.present(wrapped, "default", color=False))
        await asyncio.sleep(0)
        dialog.scroll(scroll)
        dialog.text()
        for width in columns[1:]:
            size["columns"] = width
            dialog.text()
        first_shown = dialog.text().splitlines()[1]
        heading = dialog.text().splitlines()[0]
        dialog.pick(2)
        await answer
        return heading, first_shown

    return asyncio.run(scenario())


def test_at_the_end_a_narrower_and_a_wider_screen_still_show_the_end() -> None:
    for columns in ([140, 60], [140, 60, 100], [60, 140]):
        heading, _ = heading_after(1 << 30, columns)
        shown, total = heading.split("lines ")[1].split(" · ")[0].split(" of ")
        assert shown.split("-")[1] == total, (columns, heading)


def test_midway_the_same_step_stays_in_view() -> None:
    _, before = heading_after(40, [140])
    _, after = heading_after(40, [140, 60])
    assert before[:7] == after[:7], (before, after)  # the step number ("step NN")
