"""Language servers users already have, used when their command is on PATH and no configured
server covers the file: the first one found for a file's extension checks it."""

from __future__ import annotations

import os
from pathlib import Path

from agent_cli.core.outside.paths import program
from agent_cli.ext.lsp.settings import LspServerSpec, LspSettings

ENV_BUILTIN = "AGENT_LSP_BUILTIN"  # "0": no built-in server, whatever is on PATH (CI, tests)

PY = [".py", ".pyi"]
PY_ROOT = ["pyproject.toml", "setup.py"]
TS = [".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs"]
C = [".c", ".h", ".cc", ".cpp", ".cxx", ".hpp"]

BUILTIN: dict[str, LspServerSpec] = {
    "ruff": LspServerSpec(command=["ruff", "server"], extensions=PY, root_markers=PY_ROOT),
    "pylsp": LspServerSpec(command=["pylsp"], extensions=PY, root_markers=PY_ROOT),
    "pyright": LspServerSpec(
        command=["pyright-langserver", "--stdio"], extensions=PY, root_markers=PY_ROOT
    ),
    "typescript": LspServerSpec(
        command=["typescript-language-server", "--stdio"],
        extensions=TS,
        root_markers=["package.json", "tsconfig.json"],
    ),
    "gopls": LspServerSpec(command=["gopls"], extensions=[".go"], root_markers=["go.mod"]),
    "rust-analyzer": LspServerSpec(
        command=["rust-analyzer"], extensions=[".rs"], root_markers=["Cargo.toml"]
    ),
    "clangd": LspServerSpec(
        command=["clangd"], extensions=C, root_markers=["compile_commands.json"]
    ),
}


def on_path(settings: LspSettings, workspace: Path) -> list[tuple[str, LspServerSpec]]:
    """The built-in servers whose command is on PATH (none with `lsp.builtin` off)."""
    wanted = settings.builtin and os.environ.get(ENV_BUILTIN) != "0"
    found = BUILTIN.items() if wanted else []
    return [(n, s) for n, s in found if program(s.command[0], workspace)]
