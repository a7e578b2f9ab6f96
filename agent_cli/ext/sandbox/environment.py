"""What a confined command's environment loses: pointers to the user's live sessions (agents,
buses, displays, editors, multiplexers) and whatever is named like a credential. The socket
filter already keeps a command from connecting to those sessions; without their addresses it
does not try, and a token in a variable is a credential whatever the sandbox hides."""

from __future__ import annotations

from collections.abc import Iterable

from agent_cli.core.outside.env import is_secret

SESSION_POINTERS = frozenset(
    {
        "SSH_AUTH_SOCK",
        "SSH_AGENT_PID",
        "GPG_AGENT_INFO",
        "DBUS_SESSION_BUS_ADDRESS",
        "DBUS_SYSTEM_BUS_ADDRESS",
        "DOCKER_HOST",
        "CONTAINER_HOST",
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "XAUTHORITY",
        "XDG_RUNTIME_DIR",
        "PULSE_SERVER",
        "KRB5CCNAME",
        "TMUX",
        "TMUX_PANE",
        "STY",
        "SWAYSOCK",
        "I3SOCK",
        "NVIM",
        "NVIM_LISTEN_ADDRESS",
        "VSCODE_IPC_HOOK_CLI",
        "VSCODE_GIT_IPC_HANDLE",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "AGENT_SERVER",
    }
)


def withheld(name: str) -> bool:
    """Is `name` kept from a confined command? (Credential names: the gate's own rule.)"""
    return name.upper() in SESSION_POINTERS or is_secret(name)


def unset_args(names: Iterable[str]) -> list[str]:
    """bubblewrap's `--unsetenv` for each withheld name of `names` (the environment it gets)."""
    out: list[str] = []
    for name in names:
        if withheld(name):
            out += ["--unsetenv", name]
    return out
