"""Auto mode's fixed rules: what its reviewer never decides. A containment escape (reading
credentials or a cloud metadata endpoint, sending files to a host not allowed, disabling or
widening the sandbox, writing the agent's own settings, hooks or trust) is denied without a
reviewer; an irreversible reach outside the workspace (a forced push, deleting outside it,
publishing a package) is the user's to answer. Everything else goes to the reviewer."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from agent_cli.core.settings.hosts import parse_host_entry
from agent_cli.ext.auto.words import commands

Kind = Literal["escape", "irreversible"]
CREDENTIALS = re.compile(
    r"(^|/)(\.aws|\.ssh|\.gnupg|\.azure|\.kube|\.config/gcloud|\.config/gh|Library/Keychains)"
    r"(/|$)|(^|/)(\.netrc|\.git-credentials|\.pypirc|\.npmrc|\.docker/config\.json|"
    r"\.env(\.(?!example$|sample$|template$)[\w.-]+)?)$"
)
METADATA = ("169.254.169.254", "metadata.google.internal", "fd00:ec2::254", "100.100.100.200")
KEYCHAIN = {"security": ("find-generic-password", "find-internet-password", "dump-keychain"),
            "secret-tool": ("lookup",)}  # fmt: skip
UPLOADS = re.compile(r"^(-d|--data|--data-binary|--data-urlencode|--json|-F|--form|-T|"
                     r"--upload-file|--post-file|--body-file)(=|$)|^-[dFT].+")  # fmt: skip
SENDERS = frozenset({"scp", "rsync", "sftp", "nc", "ncat", "netcat", "socat", "ftp"})
PUBLISH = {"npm": "publish", "yarn": "publish", "pnpm": "publish", "cargo": "publish",
           "twine": "upload", "poetry": "publish", "gem": "push", "gh": "release"}  # fmt: skip
FORCE = frozenset({"-f", "--force", "--force-with-lease", "--mirror", "--delete", "-d"})
WIDENING = (("AGENT_SANDBOX=off",), ("--sandbox", "off"), ("--permission-mode", "bypass"))


@dataclass(frozen=True)
class Fixed:
    kind: Kind
    reason: str


@dataclass(frozen=True)
class Reach:
    """What the rules measure a call against."""

    workspace: Path
    allowed_hosts: Sequence[str] = ()
    config_dir: Path | None = None  # the agent's own settings and trust (user_config_dir())


def fixed(tool: str, arguments: dict[str, Any], reach: Reach) -> Fixed | None:
    """The fixed rule a call falls under, or None: the reviewer's to answer."""
    if tool == "bash":
        return _bash(str(arguments.get("command", "")), reach)
    text = json.dumps(arguments)
    if any(host in text for host in METADATA):
        return Fixed("escape", "it reaches a cloud metadata endpoint")
    path = arguments.get("path")
    if isinstance(path, str) and path:
        if _credential(path, reach):
            return Fixed("escape", f"it reads or writes credentials ({path})")
        if tool in ("write_file", "edit_file") and (own := _own(path, reach)):
            return Fixed("escape", f"it writes the agent's own {own} ({path})")
    return None


def _bash(command: str, reach: Reach) -> Fixed | None:
    said = set(re.split(r"[\s'\"`;&|()]+", command))  # however deep a shell -c quotes it
    for needed in WIDENING:
        if all(word in said for word in needed):
            return Fixed("escape", f"it disables or widens the sandbox ({' '.join(needed)})")
    for words in commands(command):
        found = _escape(words, reach) or _irreversible(words, reach)
        if found is not None:
            return found
    return None


def _escape(words: list[str], reach: Reach) -> Fixed | None:
    program, args = words[0], words[1:]
    if any(host in word for word in words for host in METADATA):
        return Fixed("escape", "it reaches a cloud metadata endpoint")
    if any(sub in args for sub in KEYCHAIN.get(program, ())):
        return Fixed("escape", f"it reads the keychain ({program} {args[0]})")
    for path in (p for word in args for p in re.split(r"[=<>@]", word) if p):
        if _credential(path, reach):
            return Fixed("escape", f"it reads credentials ({path})")
        if own := _own(path, reach):
            return Fixed("escape", f"it touches the agent's own {own} ({path})")
    if program == "agent" and args[:1] == ["trust"]:
        return Fixed("escape", "it trusts the workspace (agent trust)")
    return _sends(program, args, reach)


def _sends(program: str, args: list[str], reach: Reach) -> Fixed | None:
    """Files sent to a host that is not on the allowed list."""
    if program in ("curl", "wget") and any(UPLOADS.match(a) for a in args):
        hosts = [h for a in args if (h := _url_host(a))]
        if not hosts or not all(_allowed(h, reach) for h in hosts):
            shown = ", ".join(hosts) or "an unnamed host"
            return Fixed("escape", f"it sends files to {shown}, not on the allowed hosts list")
    if program in SENDERS:
        hosts = [h for a in args if (h := _remote_host(program, a))]
        if hosts and not all(_allowed(h, reach) for h in hosts):
            return Fixed("escape", f"it sends data to {', '.join(hosts)} ({program}), not allowed")
    return None


def _irreversible(words: list[str], reach: Reach) -> Fixed | None:
    program, args = words[0], words[1:]
    if program == "git" and "push" in args:
        rest = args[args.index("push") + 1 :]
        if any(a in FORCE or a.startswith(("+", ":", "--force")) for a in rest):
            return Fixed("irreversible", "it rewrites or deletes what the remote holds")
    if program == "rm":
        outside = [a for a in args if not a.startswith("-") and _outside(a, reach)]
        if outside:
            return Fixed("irreversible", f"it deletes outside the workspace ({outside[0]})")
    if (verb := PUBLISH.get(program)) is not None and verb in args:
        return Fixed("irreversible", f"it publishes ({program} {verb})")
    return None


def _expand(path: str, reach: Reach) -> Path:
    expanded = Path(os.path.expandvars(path)).expanduser()
    return Path(os.path.normpath(reach.workspace / expanded))


def _credential(path: str, reach: Reach) -> bool:
    full = _expand(path, reach).as_posix()
    return bool(CREDENTIALS.search(full) or CREDENTIALS.search(path))


def _own(path: str, reach: Reach) -> str:
    """What of the agent's own a path is ("" when nothing): its settings, hooks or trust."""
    full = _expand(path, reach)
    if reach.config_dir is not None and full.is_relative_to(reach.config_dir):
        return "settings or trust"
    parts = full.parts
    for i, part in enumerate(parts[:-1]):
        if part in (".agent", ".claude") and (
            parts[i + 1].startswith("settings") or parts[i + 1] == "hooks"
        ):
            return "settings or hooks"
    return ""


def _outside(path: str, reach: Reach) -> bool:
    if path.startswith(("http:", "https:")):
        return False
    workspace = Path(os.path.normpath(reach.workspace))
    return not _expand(path, reach).is_relative_to(workspace)


def _url_host(word: str) -> str:
    if "://" not in word:
        return ""
    try:
        return (urlsplit(word).hostname or "").lower()
    except ValueError:
        return word


def _remote_host(program: str, word: str) -> str:
    """`scp f user@host:path`, `rsync f host::mod`, `nc host 80`: the host named."""
    if word.startswith("-"):
        return ""
    if "://" in word:
        return _url_host(word)
    if program in ("nc", "ncat", "netcat", "ftp"):
        return "" if word.isdigit() else word.lower()
    if program == "socat":
        match = re.search(r"(?:tcp|udp|ssl|openssl)[46]?(?:-connect)?:([^:,]+)", word, re.I)
        return match.group(1).lower() if match else ""
    head, sep, _ = word.partition(":")
    return head.rsplit("@", 1)[-1].lower() if sep and "/" not in head else ""


def _allowed(host: str, reach: Reach) -> bool:
    for entry in reach.allowed_hosts:
        try:
            parsed = parse_host_entry(entry)
        except ValueError:
            continue
        if parsed.port is None and parsed.covers(host, 0):
            return True
        if parsed.port is not None and parsed.covers(host, parsed.port):
            return True
    return False
