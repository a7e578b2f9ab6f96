"""Bringing a marketplace or a plugin onto the machine: what a SOURCE names, a git clone (or
its update) with the `git` binary, and a folder copied.

git runs as the agent runs it everywhere outside the sandbox (core/outside/git.py): no
variables sending it to another repository, no hooks, and every program a repository's config
names made harmless; a clone checks out no submodules."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.errors import AgentError, UsageError
from agent_cli.core.outside import git_cli, spawn
from agent_cli.core.outside.git import ALWAYS, UnsafeRepository, base_env, config_env, neutral_env

OWNER_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+$")
GIT_URL = re.compile(r"^(https?://|file://|ssh://|git://|[\w.-]+@[\w.-]+:)")
SKIPPED = (".git",)


class FetchError(AgentError):
    """git could not bring the source (exit 1: the source was well formed)."""


@dataclass(frozen=True)
class MarketSource:
    """Where a marketplace or a plugin comes from: a folder here, or a git URL."""

    kind: str  # "folder" | "git"
    where: str  # the folder's absolute path, or the URL
    label: str  # as the user gave it


def parse_source(text: str, base: Path) -> MarketSource:
    """SOURCE as `agent plugin marketplace add` takes it: a folder (relative to `base`), a git
    URL (`file://`, `https://`, `ssh://`, `git@host:path`), or `owner/repo` for GitHub."""
    text = text.strip()
    if not text:
        raise UsageError("an empty source: give a folder, a git URL or owner/repo")
    folder = (base / text).expanduser()
    if folder.is_dir():
        return MarketSource("folder", str(folder.resolve()), text)
    if GIT_URL.match(text):
        return MarketSource("git", text, text)
    if OWNER_REPO.match(text) and not text.startswith("."):
        return MarketSource("git", f"https://github.com/{text.removesuffix('.git')}.git", text)
    raise UsageError(f"{text}: not a folder, a git URL or owner/repo")


def _git(cwd: Path, *args: str, env: dict[str, str]) -> str:
    try:
        done = git_cli.run_git(cwd, *args, env=env)
    except FileNotFoundError as e:
        raise FetchError("git is not installed: git marketplaces and plugins need it") from e
    except spawn.TimeoutExpired as e:
        raise FetchError(f"git {args[0]}: no answer in {e.timeout:.0f} s") from e
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        said = next((line for line in lines if line.startswith(("fatal:", "error:"))), "")
        raise FetchError(f"git {args[0]}: {said or (lines or [f'exit {done.returncode}'])[0]}")
    return str(done.stdout.decode(errors="replace")).strip()


def _in_repo(repo: Path, *args: str) -> str:
    try:
        env = neutral_env(repo)
    except UnsafeRepository as e:
        raise FetchError(f"git in {repo}: {e}") from e
    return _git(repo, *args, env=env)


def clone(url: str, dest: Path, ref: str = "", sha: str = "") -> str:
    """`url` cloned into `dest` (made whole beside it, then renamed); its commit."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{dest.name}-"))
    env = {**base_env(), **config_env(ALWAYS)}
    try:
        shallow = () if sha else ("--depth", "1")
        branch = ("--branch", ref) if ref and not sha else ()
        _git(work, "clone", "--quiet", *shallow, *branch, "--", url, "repo", env=env)
        if sha:
            _in_repo(work / "repo", "checkout", "--quiet", "--detach", sha)
        commit = _in_repo(work / "repo", "rev-parse", "HEAD")
        shutil.rmtree(dest, ignore_errors=True)
        (work / "repo").rename(dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return commit


def pull(repo: Path, ref: str = "") -> tuple[str, str]:
    """The clone brought to its remote's `ref` (its default branch): (commit before, after)."""
    before = _in_repo(repo, "rev-parse", "HEAD")
    _in_repo(repo, "fetch", "--quiet", "--depth", "1", "origin", ref or "HEAD")
    _in_repo(repo, "reset", "--quiet", "--hard", "FETCH_HEAD")
    return before, _in_repo(repo, "rev-parse", "HEAD")


def copy_folder(source: Path, dest: Path) -> list[str]:
    """`source` copied to `dest` (made whole beside it, then renamed), less `.git`. A link
    that leads out of `source` is not followed (one line each says so): a plugin cannot
    bring the user's own files into the store."""
    root = source.resolve()
    warnings: list[str] = []
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{dest.name}-"))
    try:
        _copy_tree(root, root, work / "copy", warnings)
        shutil.rmtree(dest, ignore_errors=True)
        (work / "copy").rename(dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return warnings


def _copy_tree(root: Path, folder: Path, dest: Path, warnings: list[str]) -> None:
    dest.mkdir(parents=True)
    for item in sorted(folder.iterdir()):
        if item.name in SKIPPED:
            continue
        target = item.resolve()
        if item.is_symlink() and not target.is_relative_to(root):
            warnings.append(f"{item.relative_to(root)}: a link out of the plugin; not copied")
            continue
        if target.is_dir():
            if item.is_symlink() and root.is_relative_to(target):
                warnings.append(f"{item.relative_to(root)}: a link to a folder above; not copied")
                continue
            _copy_tree(root, target, dest / item.name, warnings)
        elif target.is_file():
            shutil.copy2(target, dest / item.name)


def digest(folder: Path) -> str:
    """A short digest of the folder's files (names, contents, the executable bit): what tells
    one copy from the next."""
    import hashlib

    total = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if SKIPPED[0] in path.relative_to(folder).parts:
            continue
        executable = os.access(path, os.X_OK)
        total.update(f"{path.relative_to(folder).as_posix()}\0{executable:d}\0".encode())
        total.update(path.read_bytes())
    return total.hexdigest()[:12]
