"""What the chat shows of checkpoints: the panel's count, the turn's files, skipped files."""

from __future__ import annotations

from agent_cli.core.events import CheckpointSaved, FilesChanged, UsageUpdate
from agent_cli.ui.render.render import event_line
from agent_cli.ui.screen.side_panel import PanelState, render_panel

USAGE = UsageUpdate(caller="main", input_tokens=1000, output_tokens=50,
                    cache_read_input_tokens=0, cache_creation_input_tokens=0,
                    context_tokens=1050, context_window=200_000, session_cost_usd=0.01)  # fmt: skip


def files(names: list[str], session: int) -> FilesChanged:
    return FilesChanged(checkpoint_id="c0ffee00", files=names, session_files=session)


def test_panel_counts_the_files_changed_this_session():
    state = PanelState()
    state.apply(USAGE)
    assert "files changed" not in render_panel(state, 140, color=False)  # no turn ended yet
    assert state.apply(files(["a.txt", "b.py"], 2))
    assert state.apply(files(["b.py"], 2))  # the session total, not the sum of the turns
    assert render_panel(state, 140, color=False).endswith(
        "Usage\nin 1k  out 50\ncache 0  cost $0.010\nfiles changed 2"
    )
    assert render_panel(state, 80, color=False).endswith(
        "\nin 1k out 50 cache 0 · $0.010 · files 2"  # folded below: the usage line
    )


def test_turn_end_line_names_the_files_and_the_way_back():
    line = event_line(files(["a.txt", "b.py", "c.txt"], 3), 100, color=False)
    assert line == "◇ 3 files changed: a.txt, b.py, c.txt (/undo takes the turn back)"
    many = event_line(files([f"f{n}" for n in range(8)], 8), 200, color=False)
    assert many is not None
    assert "8 files changed: f0, f1, f2, f3, f4, f5 …" in many
    assert event_line(files([], 0), 100, color=False) is None  # a read-only turn says nothing


def test_skipped_files_are_named_and_a_full_checkpoint_is_quiet():
    quiet = CheckpointSaved(id="c0ffee00", turn=1)
    assert event_line(quiet, 100, color=False) is None
    loud = CheckpointSaved(id="c0ffee00", turn=1, skipped=["big.bin", "vendor/repo/"])
    assert event_line(loud, 120, color=False) == (
        "! not in the checkpoint (too large or a nested repo): big.bin, vendor/repo/"
    )
