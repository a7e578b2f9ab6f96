"""The daily extras' run-wide service (`runtime.extension("daily")`): a session's title
(/rename), the conversation to a file (/export), the last reply (/copy), another directory the
tools read and write as the workspace (/add-dir), the requests /init and /review send, and /btw's
side question (aside.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.core.errors import UsageError
from agent_cli.core.history import last_assistant_text
from agent_cli.core.prompts.templates import load_prompt
from agent_cli.ext.daily.aside import answer_aside
from agent_cli.runtime.changes import working_changes
from agent_cli.session.export import ExportFormat, ExportHeader, as_json, as_markdown
from agent_cli.session.resume import read_conversation
from agent_cli.session.transcript import TitleRecord
from agent_cli.tools.fs import inside

if TYPE_CHECKING:
    from agent_cli.core.options import Options
    from agent_cli.runtime.runtime import Runtime
    from agent_cli.session.export import Entry
    from agent_cli.session.state import Session

TITLE_MAX = 80
MAX_DIFF_CHARS = 60_000  # past this the model reads the rest itself
MAX_UNTRACKED = 50


def clean_title(title: str) -> str:
    """One line of printable characters (a title is shown in lists and the terminal's title)."""
    words = "".join(c if c.isprintable() else " " for c in title).split()
    return " ".join(words)[:TITLE_MAX].strip()


class Daily:
    """What the daily commands ask of the run: always of its current session."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    @property
    def session(self) -> Session:
        return self.runtime.session

    @property
    def options(self) -> Options:
        return self.runtime.options

    async def aside(self, question: str) -> str:
        """/btw's answer (aside.py)."""
        return await answer_aside(self.runtime, question)

    def rename(self, title: str) -> str:
        """The session's title from now on (recorded: a resume and the session lists show it)."""
        clean = clean_title(title)
        if not clean:
            raise UsageError("/rename TITLE: say the session's new title.")
        self.session.title = clean
        self.session.record(TitleRecord(title=clean))
        return clean

    def conversation(self) -> list[Entry]:
        """Everything said in this session, what compactions took out of the context included."""
        transcript = self.session.transcript
        if transcript is not None and transcript.path.is_file():
            return read_conversation(transcript.path)
        return list(self.session.messages)

    def export(self, target: str, kind: ExportFormat | None = None) -> tuple[Path, int]:
        """Write the conversation to `target` (relative: to the workspace; empty: a name of
        the session's own beside its transcript, never an untracked file in the user's
        repository). JSON when asked or the name ends in .json, else Markdown. Returns the
        file and how many messages it holds."""
        if target:
            raw = Path(target).expanduser()
            path = raw if raw.is_absolute() else self.options.workspace / raw
        else:
            path = (
                self.session_folder()
                / f"agent-{self.session.id}{'.json' if kind == 'json' else '.md'}"
            )
        kind = kind or ("json" if path.suffix.lower() == ".json" else "markdown")
        header = ExportHeader(
            self.session.id, self.session.title, self.session.model, str(self.options.workspace)
        )
        conversation = self.conversation()
        text = (as_json if kind == "json" else as_markdown)(header, conversation)
        if path.is_dir():
            raise UsageError(f"/export: {path} is a directory; name a file.")
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as e:
            raise UsageError(f"/export: cannot write {path}: {e.strerror or e}.") from e
        return path, sum(1 for entry in conversation if isinstance(entry, dict))

    def session_folder(self) -> Path:
        """Where the session's transcript lives (made if the session has written none yet)."""
        folder = self.runtime.paths.transcript(self.session.id).parent
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def save_reply(self, text: str) -> Path:
        """The last reply in a file beside the transcript (/copy, when the clipboard is not
        sure to get it)."""
        path = self.session_folder() / f"agent-{self.session.id}-reply.md"
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as e:
            raise UsageError(f"/copy: cannot write {path}: {e.strerror or e}.") from e
        return path

    def last_reply(self) -> str:
        """The newest reply's text (what /copy copies); "" before the first."""
        return last_assistant_text(self.session.messages)

    def add_dir(self, raw: str) -> Path:
        """`raw` (resolved, symlinks followed) is read and written as the workspace is, under
        the same permission rules and the sandbox's write paths, for the rest of the run; the
        model hears of it at its next request."""
        if not raw:
            raise UsageError("/add-dir PATH: name the directory to add.")
        given = Path(raw).expanduser()
        path = (given if given.is_absolute() else self.options.workspace / given).resolve()
        if not path.is_dir():
            raise UsageError(f"/add-dir: {path} is not a directory.")
        ctx = self.session.tool_ctx
        if inside(path, ctx.workspace.resolve()):
            raise UsageError(f"/add-dir: {path} is inside the workspace already.")
        if path in ctx.extra_roots:
            raise UsageError(f"/add-dir: {path} was added already.")
        ctx.extra_roots.append(path)
        self.runtime.options = replace(self.options, add_dirs=(*self.options.add_dirs, path))
        ctx.inbox.notice(
            f"The user added the directory {path}: read and write files there as in the "
            "workspace (absolute paths; the same permission rules apply)."
        )
        return path

    @property
    def added_dirs(self) -> list[Path]:
        return list(self.session.tool_ctx.extra_roots)

    def init_request(self) -> str:
        """/init: what the model is asked to do (it looks with its tools, writes through the
        permission gate: the user approves the write)."""
        return load_prompt("commands/init.md", self.options.workspace).strip()

    def review_request(self, focus: str) -> str | None:
        """/review: the request with the working tree's diff against HEAD; None when nothing
        changed. UsageError outside a git repository."""
        diff, untracked = working_changes(self.options.workspace)
        if not diff.strip() and not untracked:
            return None
        ask = load_prompt("commands/review.md", self.options.workspace).strip()
        if focus:
            ask += f"\nPay particular attention to: {focus}"
        if len(diff) > MAX_DIFF_CHARS:
            cut = diff[:MAX_DIFF_CHARS]
            diff = f"{cut}\n[... the diff goes on: run `git diff HEAD` for the rest]"
        parts = [ask, f"<diff>\n{diff.rstrip()}\n</diff>" if diff.strip() else ""]
        if untracked:
            listed = "\n".join(untracked[:MAX_UNTRACKED])
            parts.append(f"New files git does not track yet (read them):\n{listed}")
        return "\n\n".join(p for p in parts if p)
