"""Slash commands of `agent chat`. Each takes the REPL (as `Host`) and its argument text."""

from __future__ import annotations

import textwrap

from agent_cli.core.errors import AgentError
from agent_cli.core.payloads import Note
from agent_cli.runtime.extensions.contract import SlashCommand
from agent_cli.runtime.extensions.registry import NO_EXTENSIONS, Extensions
from agent_cli.ui.render.render import note_line
from agent_cli.ui.screen.side_panel import todo_counts, todo_lines
from agent_cli.ui.slash import context as context_ui
from agent_cli.ui.slash import fork as fork_ui
from agent_cli.ui.slash import plans as plans_ui
from agent_cli.ui.slash import sessions as sessions_ui
from agent_cli.ui.slash import think
from agent_cli.ui.slash.cache_note import STYLE, rewrite_note
from agent_cli.ui.slash.help_brief import brief
from agent_cli.ui.slash.host import ChatPart, Command, Host, run_extension
from agent_cli.ui.slash.workspace_commands import run_workspace_command

HELP = {
    "/help [all]": "the most used commands and keys; all: every one",
    "/todos": "the whole todo list",
    "/notes [id]": "the session's notes, or one note in full",
    "/compact [focus]": "compact the conversation now, keeping `focus` in view",
    "/clear": "start a new session (the old one stays resumable)",
    **sessions_ui.HELP,
    **fork_ui.HELP,
    **context_ui.HELP,
    "/model [M]": "show the model and the endpoint's models, or change it (sonnet, opus, haiku)",
    "/memory": "the newest episodes of this workspace (episodic memory)",
    "/remember": "write an episode of this session now (in the background)",
    **think.HELP,
    **plans_ui.HELP,
    "/exit": "leave (Ctrl-D does too)",
}


# prompts for the model rather than the REPL's own work: a project command of the same name
# (.claude/commands/review.md is common) is run instead
YIELDING = frozenset({"/review", "/init"})
LAST = "/exit"


def names(extensions: Extensions = NO_EXTENSIONS) -> list[str]:
    """The commands' names as /help lists them: the agent's own (its features' included), /exit,
    then the packages' extensions'."""
    own = [key.split()[0] for key in HELP if key != LAST]
    added = extension_commands(extensions)
    features = [name for name, (ext, _) in added.items() if extensions.builtin(ext)]
    return [*own, *features, LAST, *(name for name in added if name not in features)]


def describe(name: str, extensions: Extensions = NO_EXTENSIONS) -> str:
    found = extension_commands(extensions).get(name)
    if found is not None:
        return found[1].about
    return next((text for key, text in HELP.items() if key.split()[0] == name), "")


def run(host: Host, line: str) -> None:
    """Run one slash command line; an unknown one says so and lists the known ones."""
    name, _, arg = line.strip().partition(" ")
    command = COMMANDS.get(name)
    if name in YIELDING and run_workspace_command(host, name, arg.strip()):
        return  # the workspace's own /review or /init says what that repository wants
    found = extension_commands(host.runtime.wiring.extensions).get(name)
    if command is None and found is not None:  # an installed extension's
        run_extension(host, found[0], found[1], arg.strip())
        return
    part = host.runtime.port("chat_part") if command is None else None
    if isinstance(part, ChatPart) and part.run(host, name, arg):
        return  # an extension's own (an MCP server's prompt, expanded into a turn)
    if command is None and run_workspace_command(host, name, arg.strip()):
        return
    if command is None:
        known = names(host.runtime.wiring.extensions)
        host.say(f"Unknown command {name}. Known: {' '.join(known)}", "red")
        return
    try:
        command(host, arg.strip())
    except AgentError as e:
        host.say(str(e), "red")


KEYS = {  # what ui/input/keys.py binds, as the user presses it
    "Enter": "send (while a turn runs: queued for the model's next tool boundary)",
    "Alt-Enter, Ctrl-J": "a new line in the input",
    "Up, Down": "the input history; Up on an empty input takes a queued message back to edit",
    "Tab": "complete a /command or an @path",
    "Ctrl-R": "search the input history",
    "Esc, Ctrl-C": "stop the turn (queued input comes back); at a question: no",
    "Ctrl-C twice, Ctrl-D": "on an empty input: leave",
    "Shift-Tab": "the next permission mode (the status bar shows it)",
    "Ctrl-O": "every tool call of the session and its whole output (/ searches, Esc returns)",
    "Ctrl-B": "move the running foreground command to the background (a job: /jobs)",
    "F2": "the side panel: full, compact, hidden",
    "Ctrl-G": "write the prompt in $EDITOR",
    "!cmd": "run a shell command into the conversation",
    "@path": "attach a file to the prompt",
}


def extension_commands(extensions: Extensions) -> dict[str, tuple[str, SlashCommand]]:
    """The extensions' commands by name, (extension, command); a built-in's name stays the
    built-in's (`extension_notes` says so)."""
    return {c.name: (ext, c) for ext, c in extensions.commands if c.name not in COMMANDS}


def extension_notes(extensions: Extensions) -> list[str]:
    """What `agent chat` says as it starts: what was left out of the extensions, and why."""
    lines = [problem.line for problem in extensions.problems]
    lines += [
        f"extension '{ext}': {c.name} is the agent's own command; not added"
        for ext, c in extensions.commands
        if c.name in COMMANDS
    ]
    return lines


def help_lines(width: int, extensions: Extensions = NO_EXTENSIONS) -> list[str]:
    """The commands, the extensions' commands, then the keys: each description wrapped under
    itself (a hanging indent) at `width` columns."""
    own = {key: text for key, text in HELP.items() if key != LAST}
    added: dict[str, str] = {}
    for ext, c in extension_commands(extensions).values():
        if extensions.builtin(ext):  # the agent's own features, listed with its commands
            own[c.usage or c.name] = c.about
        else:
            added[c.usage or c.name] = f"{c.about} ({ext})"
    lines = _hanging({**own, LAST: HELP[LAST]}, width)
    if added:
        lines += ["", "Extensions", *_hanging(added, width)]
    lines += ["", "Keys", *_hanging(KEYS, width)]
    return lines


def _hanging(table: dict[str, str], width: int) -> list[str]:
    column = max(len(k) for k in table) + 2
    if width - 1 - column < 30:  # too narrow beside the names: each one above its text
        column = 4
    lines: list[str] = []
    for name, text in table.items():
        wrapped = textwrap.wrap(text, max(width - 1 - column, 20)) or [""]
        first = f"{name:<{column}}" if len(name) < column else None
        if first is None:
            lines.append(name)
        lines.append((first or " " * column) + wrapped[0])
        lines += [" " * column + rest for rest in wrapped[1:]]
    return lines


def short_help(width: int, extensions: Extensions = NO_EXTENSIONS) -> list[str]:
    """The most used commands and keys, within one screen; the rest under `/help all`."""
    shown, keys, last = brief(names(extensions))
    return [*_hanging(shown, width), *textwrap.wrap(f"Keys: {keys}", width - 1), last]


def _help(host: Host, arg: str) -> None:
    extensions = host.runtime.wiring.extensions
    every = arg.lower() == "all"
    lines = (help_lines if every else short_help)(host.columns(), extensions)
    host.say("\n".join(lines))


def _todos(host: Host, arg: str) -> None:
    todos = host.panel_state.todos
    if not todos:
        host.say("No todo list yet.")
        return
    done, total = todo_counts(todos)
    body = todo_lines(todos, 200, host.color, full=True)
    host.say(f"Todos {done}/{total}\n" + body.plain.rstrip("\n"))


def _notes(host: Host, arg: str) -> None:
    notes = host.panel_state.notes
    if not arg:
        if not notes:
            host.say("No notes in this session yet.")
        else:
            host.say("\n".join(note_line(n) for n in notes))
        return
    matches = [n for n in notes if n.id.startswith(arg)]
    if len(matches) != 1:
        known = ", ".join(n.id for n in notes) or "none"
        host.say(f"No single note matches '{arg}' (notes: {known}).", "red")
        return
    host.say(_note_full(matches[0]))


def _note_full(note: Note) -> str:
    lines = [note_line(note)]
    sections = {
        "evidence": note.evidence,
        "file refs": note.file_refs,
        "missing refs": note.missing_refs,
        "open issues": note.open_issues,
    }
    for title, items in sections.items():
        if items:
            lines.append(f"{title}:")
            lines += [f"  - {item}" for item in items]
    lines.append(note.figures.model_dump_json())
    return "\n".join(lines)


def _compact(host: Host, arg: str) -> None:
    host.compact(arg or None)


def _clear(host: Host, arg: str) -> None:
    old = host.runtime.session.id
    host.runtime.switch()
    host.switched(f"New session {host.runtime.session.id} (the previous one: --resume {old}).")


def _model(host: Host, arg: str) -> None:
    session = host.runtime.session
    if arg:
        before = session.model
        model = host.runtime.tuning.set_model(arg)
        host.say(f"Model: {model} (from the next request on, /clear keeps it)")
        if model != before:
            host.say(rewrite_note("switching the model"), STYLE)
        return
    host.say(f"Model: {session.model}")
    offered = extension_commands(host.runtime.wiring.extensions).get("/models")
    if offered is not None:  # the endpoint's models (the providers extension's list)
        run_extension(host, offered[0], offered[1], "")


def _memory(host: Host, arg: str) -> None:
    text = host.runtime.memory.episodes()
    if host.runtime.memory.busy:
        text += "\n(an episode is being written)"
    host.say(text + "\nMore: `agent memory show ID`, `agent memory search QUERY`.")


def _remember(host: Host, arg: str) -> None:
    host.remember()


def _exit(host: Host, arg: str) -> None:
    host.exit()


COMMANDS: dict[str, Command] = {
    "/help": _help,
    "/todos": _todos,
    "/notes": _notes,
    "/compact": _compact,
    "/clear": _clear,
    "/sessions": sessions_ui.sessions,
    "/resume": sessions_ui.resume,
    "/fork": fork_ui.fork,
    "/context": context_ui.context_command,
    "/model": _model,
    "/memory": _memory,
    "/remember": _remember,
    "/think": think.think_command,
    "/plan": plans_ui.plan_command,
    "/plans": plans_ui.plans_command,
    "/exit": _exit,
}
