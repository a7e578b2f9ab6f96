"""What `agent commands|agents|skills list` and `/commands /agents /skills` show: every
definition, its file, what it shadows, the resolved tools and model, what was ignored or
unavailable, and what waits for `agent trust`."""

from __future__ import annotations

from typing import Any

from agent_cli.core.settings.models import aliases as model_aliases
from agent_cli.core.settings.schema import Settings
from agent_cli.ext.project_files import vocabulary as vocab
from agent_cli.ext.project_files.catalog import ProjectFiles, shell_lines
from agent_cli.ext.project_files.definitions import Definition, Kind

PARENT = "(the session's)"


def definitions(files: ProjectFiles, kind: Kind) -> list[Definition]:
    loaded = {"command": files.commands, "agent": files.agents, "skill": files.skills}[kind]
    return sorted(loaded.items.values(), key=lambda d: d.name)


def row(item: Definition, files: ProjectFiles, settings: Settings) -> dict[str, Any]:
    aliases = model_aliases(settings)
    model, model_note = vocab.resolve_model(item.model, aliases, PARENT)
    data = item.model_dump(mode="json", exclude={"meta", "model"})
    data.update(model=model, model_written=item.model, **item.meta)
    if item.kind == "agent" and item.meta.get("all_tools"):
        data["tools"] = "all"
    if item.kind == "agent":
        mode, _, mode_note = vocab.resolve_mode(
            item.meta.get("permission_mode"), settings.permissions.mode
        )
        data["permission_mode"] = mode
        data["notes"] = [*data["notes"], *([mode_note] if mode_note else [])]
    data["notes"] = [*data["notes"], *([model_note] if model_note else [])]
    data["needs_trust"] = waiting(item, files)
    return data


def waiting(item: Definition, files: ProjectFiles) -> list[str]:
    """The widening parts of `item` that do not take effect until the workspace is trusted."""
    parts = []
    if item.kind != "agent" and item.patterns and not files.allows(item, "tools"):
        parts.append("allowed-tools")
    if item.kind != "agent" and shell_lines(item.body) and not files.allows(item, "shell"):
        parts.append("!`cmd` lines (asked instead)")
    mode = str(item.meta.get("permission_mode") or "").lower()
    if (
        item.kind == "agent"
        and mode in ("acceptedits", "bypasspermissions")
        and not files.allows(item, "mode")
    ):
        parts.append(f"permissionMode {item.meta['permission_mode']}")
    return parts


def rows(files: ProjectFiles, kind: Kind, settings: Settings) -> list[dict[str, Any]]:
    return [row(d, files, settings) for d in definitions(files, kind)]


def text_lines(data: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for r in data:
        hint = f" {r['argument_hint']}" if r.get("argument_hint") else ""
        lines.append(f"{r['name']}{hint}  —  {r['description'][:100]}")
        tools = r["tools"] if isinstance(r["tools"], str) else ", ".join(r["tools"]) or "-"
        where = f"plugin {r['plugin']}" if r.get("plugin") else r["scope"]
        lines.append(f"    {where}: {r['path']}")
        lines.append(f"    tools: {tools}  ·  model: {r['model']}")
        extras = [
            ("shadows", r["shadows"]),
            ("unavailable", r["unavailable"]),
            ("ignored", r["ignored"]),
            ("needs `agent trust`", r["needs_trust"]),
            ("notes", r["notes"]),
        ]
        lines += [f"    {label}: {', '.join(v)}" for label, v in extras if v]
    return lines
