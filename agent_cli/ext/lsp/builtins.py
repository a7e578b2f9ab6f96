"""Language servers users already have, used when their command is on PATH and no configured
server covers the file: the first one found for a file's extension checks it."""

from __future__ import annotations

from agent_cli.core.settings.lsp import LspServerSpec

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
