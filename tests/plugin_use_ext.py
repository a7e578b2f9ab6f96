"""A test-only extension package that answers the port `"plugin_bundles"` (runtime/bundles.py)
with Bundles built over hand-made plugin folders, as the plugins extension would answer it with
installed ones: a real package through the real contract. Install it with `install_bundles`
and point `PLUGIN_USE_BUNDLES` at the JSON it writes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.extension_packages import install

VARIABLE = "PLUGIN_USE_BUNDLES"

MODULE = '''
"""Answers "plugin_bundles" with the plugin folders listed in $PLUGIN_USE_BUNDLES."""

import json
import os
from pathlib import Path

from agent_cli.runtime.bundles import Bundle, BundleCommand
from agent_cli.runtime.extensions import Extension


def _json(path, key=None):
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data.get(key, data) if key else data


def _bundle(entry):
    root = Path(entry["root"])
    commands = sorted((root / "commands").glob("*.md"))
    skills = sorted(p for p in (root / "skills").glob("*") if p.is_dir())
    return Bundle(
        name=entry["name"],
        root=root,
        data=Path(entry["data"]),
        source=entry["name"] + "@test",
        scope="user",
        commands=tuple(BundleCommand(p.stem, p) for p in commands),
        agents=tuple(sorted((root / "agents").glob("*.md"))),
        skills=tuple(skills),
        hooks=_json(root / "hooks" / "hooks.json", "hooks"),
        mcp_servers=_json(root / ".mcp.json", "mcpServers"),
        lsp_servers=_json(root / ".lsp.json"),
    )


class Source:
    def __init__(self):
        listed = json.loads(Path(os.environ["PLUGIN_USE_BUNDLES"]).read_text(encoding="utf-8"))
        self._bundles = tuple(_bundle(entry) for entry in listed["bundles"])
        self._warnings = tuple(listed.get("warnings", ()))

    def bundles(self):
        return self._bundles

    def warnings(self):
        return self._warnings


extension = Extension(name="plugin_use_test", ports={"plugin_bundles": lambda context: Source()})
'''


def install_bundles(site: Path) -> None:
    install(site, "plugin-use-test", "0.1", {"plugin_use_test": "plugin_use_test:extension"},
            {"plugin_use_test.py": MODULE})  # fmt: skip


def bundles_file(path: Path, plugins: dict[str, Path], warnings: tuple[str, ...] = ()) -> Path:
    """The list the extension answers with: each plugin's root, its data folder beside it."""
    listed = [
        {"name": name, "root": str(root), "data": str(root.parent / f"{name}-data")}
        for name, root in plugins.items()
    ]
    for entry in listed:
        Path(entry["data"]).mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"bundles": listed, "warnings": list(warnings)}), "utf-8")
    return path
