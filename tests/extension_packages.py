"""Extension packages made for a test, laid out as `pip install` leaves them in site-packages:
the modules, and NAME-VERSION.dist-info with METADATA and entry_points.txt. Put the folder on
PYTHONPATH (`pythonpath`) and the agent finds them as installed packages."""

from __future__ import annotations

import os
import re
import textwrap
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs" / "extensions.md"
GROUP = "agent_cli.extensions"


def install(
    site: Path, name: str, version: str, entry_points: dict[str, str], modules: dict[str, str]
) -> Path:
    """Install a package into `site`; its dist-info folder."""
    site.mkdir(parents=True, exist_ok=True)
    for file, text in modules.items():
        (site / file).write_text(textwrap.dedent(text), encoding="utf-8")
    dist = site / f"{re.sub(r'[-.]+', '_', name)}-{version}.dist-info"
    dist.mkdir()
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    (dist / "METADATA").write_text(metadata, encoding="utf-8")
    points = "".join(f"{key} = {value}\n" for key, value in entry_points.items())
    (dist / "entry_points.txt").write_text(f"[{GROUP}]\n{points}", encoding="utf-8")
    return dist


def docs_files() -> dict[str, str]:
    """The example package of docs/extensions.md: each fenced block whose first line is
    `# file: NAME`, by NAME."""
    found = {}
    for block in re.findall(r"```\w*\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S):
        first, _, rest = block.partition("\n")
        if first.startswith("# file: "):
            found[first.removeprefix("# file: ").strip()] = rest
    return found


def install_docs_example(site: Path) -> Path:
    """The docs' hello-ext, installed as pip would from its pyproject.toml."""
    files = docs_files()
    project = tomllib.loads(files.pop("pyproject.toml"))["project"]
    points = project["entry-points"][GROUP]
    return install(site, project["name"], project["version"], points, files)


BROKEN = """
raise RuntimeError("boom at import")
"""


def install_broken(site: Path) -> Path:
    return install(site, "broken-ext", "0.3", {"broken": "broken_ext:extension"},
                   {"broken_ext.py": BROKEN})  # fmt: skip


def pythonpath(*sites: Path) -> str:
    """PYTHONPATH for the agent with `sites` installed (the repository first, as the tests'
    helpers run it)."""
    return os.pathsep.join([str(REPO), *map(str, sites)])
