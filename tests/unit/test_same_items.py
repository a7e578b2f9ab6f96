"""SameItems works its answer out again only when the list holds other objects: an equal but
new object, a longer or shorter list, or a changed order all count as other."""

from __future__ import annotations

from collections.abc import Sequence

from agent_cli.core.history import SameItems


def test_the_answer_is_worked_out_again_only_for_other_objects():
    calls: list[int] = []

    def size(items: Sequence[object]) -> int:
        calls.append(1)
        return len(items)

    sizes = SameItems(size)
    a, b = {"name": "a"}, {"name": "b"}
    tools = [a, b]
    assert sizes.of(tools) == 2
    assert sizes.of([a, b]) == 2  # another list, the same objects: kept
    assert len(calls) == 1
    assert sizes.of([a, {"name": "b"}]) == 2  # an equal object is another object
    assert sizes.of([b, a]) == 2
    assert sizes.of([a]) == 1
    assert len(calls) == 4
