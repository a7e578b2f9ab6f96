"""`agent worktrees merge NAME`: the worktree's diff against its base applied to the checkout
the command runs in — all of it or nothing, after a checkpoint of that checkout."""

from __future__ import annotations

from pathlib import Path

from agent_cli.core.errors import AgentError


def merge(workspace: Path, name: str, state_dir: Path | None) -> list[str]:
    from agent_cli.ext.checkpoints.cli import open_workspace_store
    from agent_cli.ext.worktrees import worktree as wt
    from agent_cli.ext.worktrees.home import home

    where = home(workspace)
    record = wt.load(where.root, name)
    patch = wt.diff(record)
    if not patch.strip():
        return [f"worktree {name}: nothing to merge (no change since {record.base[:10]})"]
    target = where.checkout
    clashing = wt.conflicts(target, patch)
    if clashing:
        raise AgentError(
            f"worktree {name} does not apply cleanly to {target}: {', '.join(clashing)} "
            "(nothing changed)"
        )
    store = open_workspace_store(target, state_dir)
    checkpoint = store.take(f"merge-{name}", f"before merging worktree {name}", 0)
    wt.apply(target, patch)
    files = wt.files_of(patch)
    where_flag = "" if target == workspace.resolve() else f" -w {target}"
    return [
        f"merged worktree {name} into {target}: {', '.join(files)}",
        f"undo: agent rewind {checkpoint.id} --code{where_flag}",
        f"then: agent worktrees remove {name}",
    ]
