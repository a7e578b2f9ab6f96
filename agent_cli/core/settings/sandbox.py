"""The sandbox part of the settings: how shell commands are confined (SPEC §5, §12)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

SandboxMode = Literal["auto", "required", "off"]


class SandboxNetwork(BaseModel):
    """What a sandboxed command may reach through the agent's proxy."""

    model_config = ConfigDict(extra="forbid")

    allowed_domains: list[str] = Field(
        default_factory=list,
        description="Hosts let through the proxy: 'host', 'host:port' or '*.suffix'.",
    )

    @field_validator("allowed_domains")
    @classmethod
    def _entries(cls, value: list[str]) -> list[str]:
        from agent_cli.core.settings.hosts import parse_host_entry  # a setting names hosts

        for item in value:
            parse_host_entry(item)  # ValueError names the entry
        return value


class SandboxSettings(BaseModel):
    """Confinement of shell commands: writes only in the workspace, credentials hidden."""

    model_config = ConfigDict(extra="forbid")

    mode: SandboxMode = Field(
        default="auto",
        description="auto: confine when the platform can; required: refuse otherwise; off: never.",
    )
    write_paths: list[str] = Field(
        default_factory=list, description="Extra paths a sandboxed command may write."
    )
    deny_read: list[str] = Field(
        default_factory=list, description="Extra paths hidden from sandboxed commands."
    )
    allow_unix_sockets: bool = Field(
        default=False,
        description="Let a sandboxed command create unix sockets (off: socket(AF_UNIX) fails, "
        "so it cannot reach ssh-agent, docker, D-Bus or any other socket of the host).",
    )
    network: SandboxNetwork = Field(default_factory=SandboxNetwork)
