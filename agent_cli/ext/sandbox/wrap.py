"""`wrap(argv, policy)`: the one function other modules call to confine a command."""

from __future__ import annotations

from agent_cli.ext.sandbox.bwrap import bwrap_argv
from agent_cli.ext.sandbox.handoff import Handoff
from agent_cli.ext.sandbox.policy import SandboxPolicy
from agent_cli.ext.sandbox.probe import SandboxProbe
from agent_cli.ext.sandbox.seatbelt import seatbelt_argv


class SandboxUnavailable(RuntimeError):
    """`required` mode on a platform that cannot confine: no command runs."""


def wrap(
    argv: list[str],
    policy: SandboxPolicy,
    found: SandboxProbe,
    mode: str = "auto",
    channel: int | None = None,
    handoff: Handoff | None = None,
) -> list[str]:
    """The argv confined by `policy`; unchanged for mode off or (auto) when nothing can confine.
    `channel`: the socket to the agent's proxy, the one way out, which the command inherits
    (bubblewrap only; Seatbelt has none). `handoff`: descriptors the caller passes to the
    command (bwrap_argv); used only where bwrap can take them."""
    if mode == "off":
        return list(argv)
    if found.mechanism is None or found.executable is None:
        if mode == "required":
            raise SandboxUnavailable(found.refusal())
        return list(argv)
    policy.prepare()
    if found.mechanism == "seatbelt":
        return seatbelt_argv(found.executable, argv, policy)
    usable = handoff if found.bind_fd else None
    return bwrap_argv(found.executable, argv, policy, channel, usable)


DENIAL_MARKERS = ("Read-only file system", "Permission denied")


def denial_note(output: str) -> str | None:
    """A line for the model when a command seems to have hit the sandbox."""
    if any(marker in output for marker in DENIAL_MARKERS):
        return (
            "[sandbox: a write outside the workspace or to a protected path was denied; "
            'rerun with "unsandboxed": true if it must run outside]'
        )
    return None


def socket_note(output: str) -> str | None:
    """A line for the model when a command may have been refused a unix socket (EPERM)."""
    if "Operation not permitted" in output:
        return (
            "[sandbox: new unix sockets and io_uring are refused inside the sandbox; if that is "
            'what failed, rerun with "unsandboxed": true (the user may set '
            "sandbox.allow_unix_sockets)]"
        )
    return None


OFFLINE_MARKERS = (
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "unable to resolve host",
    "Failed to establish a new connection",
)


def offline_note(output: str) -> str | None:
    """A line for the model when a command with no proxy seems to have wanted the network."""
    if any(marker in output for marker in OFFLINE_MARKERS):
        return (
            "[sandbox: no network: a sandboxed command reaches only the hosts listed in "
            "sandbox.network.allowed_domains, through the agent's proxy]"
        )
    return None
