"""Hand-written Claude Code plugin folders and marketplaces, in the shapes the real ones take
(../shared/plugin-corpus/SHAPES.md), for every plugin test: none is copied from the corpus.

    root = full_plugin(tmp_path / "kit")              # one of each component
    market = marketplace(tmp_path / "m", "team", [entry("kit", "./kit")])
    sha = git_commit(tmp_path / "m")                   # a file:// marketplace

`write_tree` writes any other shape: a str is text, bytes are bytes, a dict or list is JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

MANIFEST = ".claude-plugin/plugin.json"
MARKETPLACE = ".claude-plugin/marketplace.json"
ROOT = "${CLAUDE_PLUGIN_ROOT}"

Content = str | bytes | Mapping[str, Any] | list[Any]


def write_tree(root: Path, files: Mapping[str, Content], *, executable: Iterable[str] = ()) -> Path:
    """Each relative path written under `root`; `executable` paths get mode 0755."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")
    for rel in executable:
        (root / rel).chmod(0o755)
    root.mkdir(parents=True, exist_ok=True)
    return root


def manifest(name: str, **fields: Any) -> dict[str, Any]:
    """A plugin.json as most are written: name, description, version, author, then `fields`."""
    base: dict[str, Any] = {
        "name": name,
        "description": f"The {name} plugin.",
        "version": "1.0.0",
        "author": {"name": "Fixture Author", "email": "author@example.com"},
    }
    return {**base, **fields}


def command_md(description: str, body: str = "Say hello to $ARGUMENTS.\n") -> str:
    return f"---\ndescription: {description}\nargument-hint: [name]\n---\n\n{body}"


def agent_md(name: str, description: str, tools: str = "Read, Grep, Glob") -> str:
    return (
        f"---\nname: {name}\ndescription: {description}\ntools: {tools}\nmodel: sonnet\n---\n\n"
        f"You are {name}. Review what you are given and answer briefly.\n"
    )


def skill_md(name: str, description: str, body: str = "Follow the steps below.\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\n{body}"


def handler(command: str, **extra: Any) -> dict[str, Any]:
    return {"type": "command", "command": command, **extra}


def group(*handlers: dict[str, Any], matcher: str | None = None, **extra: Any) -> dict[str, Any]:
    """One matcher group: `{"matcher"?, "hooks": [handler, ...]}`."""
    found: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
    return {**found, "hooks": list(handlers), **extra}


def hooks_file(events: Mapping[str, list[dict[str, Any]]], **extra: Any) -> dict[str, Any]:
    """hooks/hooks.json as 15 of 19 real ones: `{"description", "hooks": {event: [group]}}`."""
    return {"description": "Fixture hooks", **extra, "hooks": dict(events)}


GUARD_SH = """#!/bin/sh
# Records that it ran, in the plugin's data folder, then lets the tool call go on.
mkdir -p "${CLAUDE_PLUGIN_DATA:-/tmp}"
echo "guard ran" >> "${CLAUDE_PLUGIN_DATA:-/tmp}/guard.log"
exit 0
"""

CHECK_SH = """#!/bin/sh
# The lint skill's helper: counts the lines of the files it is given.
wc -l "$@"
"""


def full_plugin(
    root: Path,
    name: str = "kit",
    *,
    hook_command: str = f'sh "{ROOT}/hooks/guard.sh"',
    mcp_server: Mapping[str, Any] | None = None,
    lsp_server: Mapping[str, Any] | None = None,
) -> Path:
    """One of each component at its default place: /<name>:hello, agent type `reviewer`, skill
    `lint` bundling an executable scripts/check.sh, a PreToolUse hook on Bash, an MCP server in
    `.mcp.json` (with the `mcpServers` wrapper), a language server in `.lsp.json` (bare map)."""
    server = mcp_server or {"command": "python3", "args": [f"{ROOT}/servers/notes.py"]}
    lsp = lsp_server or {"command": "fixture-ls", "args": ["--stdio"]}
    lsp = {"extensionToLanguage": {".fx": "fixture"}, **lsp}
    return write_tree(
        root,
        {
            MANIFEST: manifest(name),
            "commands/hello.md": command_md("Greet someone"),
            "agents/reviewer.md": agent_md("reviewer", "Reviews a change for mistakes"),
            "skills/lint/SKILL.md": skill_md("lint", "Lint files by counting their lines"),
            "skills/lint/scripts/check.sh": CHECK_SH,
            "skills/lint/REFERENCE.md": "Notes the skill reads; not a script.\n",
            "hooks/hooks.json": hooks_file(
                {"PreToolUse": [group(handler(hook_command), matcher="Bash")]}
            ),
            "hooks/guard.sh": GUARD_SH,
            ".mcp.json": {"mcpServers": {"notes": dict(server)}},
            "servers/notes.py": "print('a fixture MCP server placeholder')\n",
            ".lsp.json": {"fixture": lsp},
            "README.md": f"# {name}\n",
        },
        executable=["skills/lint/scripts/check.sh", "hooks/guard.sh"],
    )


def hooks_only_plugin(root: Path, command: str = f"bash {ROOT}/scripts/annotate.sh") -> Path:
    """No manifest, only hooks/hooks.json (the `JBillson__claude-annotator` shape): the name
    comes from the marketplace entry or the folder."""
    return write_tree(
        root,
        {
            "hooks/hooks.json": {"hooks": {"Stop": [group(handler(command, timeout=10))]}},
            "scripts/annotate.sh": "#!/bin/sh\nexit 0\n",
        },
        executable=["scripts/annotate.sh"],
    )


def skills_only_plugin(root: Path, skills: Iterable[str] = ("draft", "edit")) -> Path:
    """No manifest, only skills/<name>/SKILL.md (the `noahlz__…/writing-tools` shape)."""
    return write_tree(root, {f"skills/{s}/SKILL.md": skill_md(s, f"Help {s} text") for s in skills})


def entry(name: str, source: str | Mapping[str, Any], **fields: Any) -> dict[str, Any]:
    """A marketplace entry: name, source, a description, then `fields` (strict, skills, ...)."""
    return {"name": name, "source": source, "description": f"The {name} plugin.", **fields}


def marketplace(
    root: Path,
    name: str,
    plugins: list[dict[str, Any]],
    *,
    owner: Mapping[str, Any] | None = None,
    metadata: Mapping[str, Any] | None = None,
    **extra: Any,
) -> Path:
    """`<root>/.claude-plugin/marketplace.json`; returns `root` (the marketplace root)."""
    data: dict[str, Any] = {"name": name, "owner": dict(owner or {"name": "Fixture Owner"})}
    if metadata is not None:
        data["metadata"] = dict(metadata)
    data.update(extra)
    data["plugins"] = plugins
    return write_tree(root, {MARKETPLACE: data})


def raw_marketplace(root: Path, text: str) -> Path:
    """A marketplace.json holding exactly `text` (a missing comma, a trailing comma, a path)."""
    return write_tree(root, {MARKETPLACE: text})


def git_commit(folder: Path, message: str = "fixture") -> str:
    """Commit everything in `folder` (a repository is made first if none); the commit's sha.
    Identity and signing come from the environment given here, never the user's config."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Fixture",
        "GIT_AUTHOR_EMAIL": "fixture@example.com",
        "GIT_COMMITTER_NAME": "Fixture",
        "GIT_COMMITTER_EMAIL": "fixture@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=folder, env=env, check=True, capture_output=True, text=True
        )
        return done.stdout.strip()

    if not (folder / ".git").exists():
        git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "--allow-empty", "-m", message)
    return git("rev-parse", "HEAD")


def tool_results(body: dict[str, Any]) -> list[str]:
    """Each tool_result's content of a recorded request, as JSON text, oldest first."""
    return [
        json.dumps(block.get("content"))
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
