"""A plugin that is a Python package declaring the `agent_cli.extensions` entry point: pip of
the running interpreter installs it into the agent's own environment (never the user's
project), and the run's entry-point discovery loads it as it loads any package's extension.

pip runs isolated (`-I`: neither the working directory nor PYTHON* variables on its path) from
the store's folder, so a workspace holding a `pip/` folder cannot stand in for pip."""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.errors import AgentError
from agent_cli.core.outside import spawn
from agent_cli.runtime.extensions.discovery import GROUP


class PipError(AgentError):
    """pip could not install or remove the package (exit 1)."""


@dataclass(frozen=True)
class Package:
    dist: str  # the distribution name pip knows it by
    version: str
    extensions: tuple[str, ...]  # the entry points' names


def package(folder: Path) -> Package | None:
    """The package `folder/pyproject.toml` describes, when it declares the entry point."""
    try:
        data = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    project = data.get("project")
    if not isinstance(project, dict):
        return None
    points = project.get("entry-points", {})
    declared = points.get(GROUP) if isinstance(points, dict) else None
    name = project.get("name")
    if not isinstance(declared, dict) or not declared or not isinstance(name, str):
        return None
    version = project.get("version")
    return Package(name, version if isinstance(version, str) else "", tuple(sorted(declared)))


def runs(found: Package) -> list[str]:
    """What consent shows for it: the package's code runs inside the agent."""
    names = ", ".join(found.extensions)
    where = sys.prefix
    return [f"python package {found.dist} {found.version}".rstrip() + f" into {where}: "
            f"its code runs inside the agent, as the extension(s) {names}"]  # fmt: skip


def pip(*args: str, cwd: Path) -> None:
    cwd.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-I", "-m", "pip", *args, "--disable-pip-version-check", "-q"]
    try:
        done = spawn.run(argv, cwd=cwd, capture_output=True, text=True, timeout=900)
    except (OSError, spawn.TimeoutExpired) as e:
        raise PipError(f"pip {args[0]}: {e}") from e
    if done.returncode != 0:
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        said = next((line for line in lines if "ERROR" in line), lines[-1] if lines else "")
        raise PipError(f"pip {args[0]} failed (exit {done.returncode}): {said.strip()}")


def install(folder: Path, cwd: Path) -> None:
    pip("install", str(folder), cwd=cwd)


def uninstall(dist: str, cwd: Path) -> None:
    pip("uninstall", "-y", dist, cwd=cwd)
