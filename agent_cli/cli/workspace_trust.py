"""Before a run starts in an untrusted workspace that asks for more (SPEC §12, issue 19):
`agent run` says once on stderr what is ignored and how to trust it; `agent chat` asks once, on
the terminal, before the REPL starts, and records the answer."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.runtime.trust_items import widening_items
from agent_cli.tools.shell.confined import notice_of

if TYPE_CHECKING:
    from agent_cli.policy.trust import TrustItem, TrustStore


def untrusted_items(workspace: Path, store: TrustStore | None = None) -> list[TrustItem]:
    """What the workspace asks for that is ignored because it is not trusted (the trust store
    is read only when the workspace asks for something)."""
    items = widening_items(workspace)
    if not items:
        return []
    from agent_cli.policy.trust import TrustStore

    return [] if (store or TrustStore()).is_trusted(workspace) else items


def ignored_line(items: list[TrustItem]) -> str:
    from agent_cli.policy.trust import ENV_TRUST

    shown = ", ".join(item.description for item in items[:3])
    more = f" and {len(items) - 3} more" if len(items) > 3 else ""
    return (
        f"agent: this workspace is not trusted, so its own settings' {shown}{more} are ignored; "
        f"to apply them run `agent trust` here (or set {ENV_TRUST}=1 for one run)"
    )


def warn_untrusted(workspace: Path) -> None:
    items = untrusted_items(workspace)
    if items:
        sys.stderr.write(ignored_line(items) + "\n")
        sys.stderr.flush()


def warn_unconfined(extension: Callable[[str], object | None]) -> None:
    """Once a run: shell commands will not be confined (auto's fallback, or required's refusal).
    `extension`: the Runtime's, which has the run's sandbox."""
    line = notice_of(extension)
    if line:
        sys.stderr.write(f"agent: {line}\n")
        sys.stderr.flush()


def ask_trust(workspace: Path, read_answer: Callable[[str], str] = input) -> bool:
    """One y/N question listing what trust would let run; a yes is recorded. True if trusted."""
    from agent_cli.policy.trust import TrustStore, grant_items

    store = TrustStore()
    items = untrusted_items(workspace, store)
    if not items:
        return store.is_trusted(workspace)
    lines = [f"This workspace ({workspace}) asks for things that run commands unasked:"]
    lines += [f"  - {item.description}  ({Path(item.source).name})" for item in items]
    lines.append("Deny rules and narrower settings apply either way.")
    sys.stdout.write("\n".join(lines) + "\n")
    try:
        answer = read_answer("Trust this workspace? [y/N] ")
    except EOFError:
        answer = ""
    if answer.strip().lower() not in ("y", "yes"):
        sys.stdout.write("Not trusted: running without them (`agent trust` changes that).\n")
        return False
    store.trust(workspace, grant_items(items))
    return True
