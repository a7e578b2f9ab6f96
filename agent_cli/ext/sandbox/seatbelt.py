"""macOS: a Seatbelt profile for `sandbox-exec` with the same policy. Untested here (Linux CI)."""

from __future__ import annotations

from agent_cli.ext.sandbox.policy import SandboxPolicy


def _quote(path: object) -> str:
    return '"' + str(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


def profile(policy: SandboxPolicy) -> str:
    """Reads allowed but the hidden paths, writes only in the writable ones, no network."""
    lines = ["(version 1)", "(deny default)", "(allow process*)", "(allow sysctl-read)"]
    lines.append("(allow file-read*)")
    lines += [f"(deny file-read* (subpath {_quote(p)}))" for p in policy.hidden()]
    lines += [f"(allow file-write* (subpath {_quote(p)}))" for p in policy.writable()]
    lines.append('(allow file-write* (literal "/dev/null"))')
    lines += [f"(deny file-write* (subpath {_quote(p)}))" for p in policy.protected()]
    return "\n".join(lines) + "\n"


def seatbelt_argv(exe: str, argv: list[str], policy: SandboxPolicy) -> list[str]:
    return [exe, "-p", profile(policy), *argv]
