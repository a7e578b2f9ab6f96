"""What an untrusted workspace's settings may say: only what narrows what runs unasked."""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)

# narrow -> wide; auto lets a model answer what default asks: only bypass is wider
MODE_RANK = {"plan": 0, "default": 1, "accept-edits": 2, "auto": 3, "bypass": 4}
SANDBOX_RANK = {"required": 0, "auto": 1, "off": 2}  # narrow -> wide
SANDBOX_WIDENING = ("write_paths", "allow_unix_sockets")


def _sandbox_narrowed(sandbox: dict[str, Any], base_mode: str) -> dict[str, Any]:
    """Without extra writable paths, allowed hosts, or a mode wider than the user's."""
    kept = {k: v for k, v in sandbox.items() if k not in SANDBOX_WIDENING}
    if isinstance(kept.get("network"), dict):
        kept["network"] = {k: v for k, v in kept["network"].items() if k != "allowed_domains"}
    mode = kept.get("mode")
    if isinstance(mode, str) and SANDBOX_RANK.get(mode, -1) > SANDBOX_RANK.get(base_mode, 1):
        del kept["mode"]
    if kept != sandbox:
        log.warning("the workspace's sandbox widening is ignored until `agent trust`")
    return kept


def user_mode(user: dict[str, Any], section: str = "permissions") -> str:
    """The user's own `permissions.mode` (or `sandbox.mode`): what a workspace may not widen."""
    part = user.get(section)
    mode = part.get("mode") if isinstance(part, dict) else None
    return str(mode or ("default" if section == "permissions" else "auto"))


def narrowing_only(
    local: dict[str, Any], base_mode: str, base_sandbox: str = "auto"
) -> dict[str, Any]:
    """A workspace's settings without what widens what runs unasked: hooks, credentials passed
    on (`pass_env`), allow rules, a permission mode wider than `base_mode` (the user's), and
    what widens the sandbox (see `_sandbox_narrowed`; `base_sandbox` is the user's mode). The
    extensions' own parts are narrowed by their `narrow` (sections.py's `untrusted`)."""
    kept = {k: v for k, v in local.items() if k not in ("hooks", "pass_env", "auto")}
    if local.get("auto"):  # rules the reviewer would follow: a repository vouching for itself
        log.warning("the workspace's auto section is ignored until `agent trust`")
    if local.get("pass_env"):  # the user's credentials handed to programs it names
        log.warning("the workspace's pass_env is ignored until `agent trust`")
    if isinstance(kept.get("sandbox"), dict):
        kept["sandbox"] = _sandbox_narrowed(kept["sandbox"], base_sandbox)
    permissions = kept.get("permissions")
    if isinstance(permissions, dict):
        permissions = {k: v for k, v in permissions.items() if k != "allow"}
        mode = permissions.get("mode")
        if isinstance(mode, str) and MODE_RANK.get(mode, -1) > MODE_RANK.get(base_mode, 1):
            del permissions["mode"]
        kept["permissions"] = permissions
    return kept
