"""The sandbox confines a real command with real bubblewrap (skipped only where bwrap is absent)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_cli.core.settings.sandbox import SandboxSettings
from agent_cli.sandbox.policy import SandboxPolicy
from agent_cli.sandbox.probe import SandboxProbe, probe
from agent_cli.sandbox.seatbelt import profile
from agent_cli.sandbox.wrap import SandboxUnavailable, denial_note, wrap

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


def _setup(tmp_path: Path) -> SandboxPolicy:
    home = tmp_path / "home"
    ws = home / "proj"
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".agent").mkdir()
    (ws / ".agent" / "settings.json").write_text("{}")
    (ws / ".transcripts").mkdir()
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("SECRET-KEY")
    return SandboxPolicy(workspace=ws, home=home)


def _run(policy: SandboxPolicy, command: str) -> subprocess.CompletedProcess[str]:
    argv = wrap(["bash", "-c", command], policy, probe(), mode="required")
    return subprocess.run(argv, capture_output=True, text=True, check=False, timeout=30)


@needs_bwrap
def test_writes_inside_the_workspace_work(tmp_path: Path) -> None:
    policy = _setup(tmp_path)
    done = _run(policy, "echo ok > inside.txt && cat inside.txt")
    assert done.returncode == 0, done.stderr
    assert (policy.workspace / "inside.txt").read_text() == "ok\n"


@needs_bwrap
@pytest.mark.parametrize(
    "target",
    ["../outside.txt", ".agent/settings.json", ".git/hooks/pre-commit", ".transcripts/t.jsonl"],
)
def test_writes_outside_or_to_protected_paths_are_denied(tmp_path: Path, target: str) -> None:
    policy = _setup(tmp_path)
    before = (policy.workspace / ".agent" / "settings.json").read_text()
    done = _run(policy, f"echo x > {target}")
    assert done.returncode != 0
    assert denial_note(done.stderr) is not None, done.stderr
    assert not (policy.workspace / "../outside.txt").exists()
    assert not (policy.workspace / ".git/hooks/pre-commit").exists()
    assert (policy.workspace / ".agent" / "settings.json").read_text() == before


@needs_bwrap
def test_credentials_are_hidden(tmp_path: Path) -> None:
    policy = _setup(tmp_path)
    done = _run(policy, f"cat {policy.home}/.ssh/id_rsa; ls -A {policy.home}/.ssh")
    assert "SECRET-KEY" not in done.stdout
    assert "id_rsa" not in done.stdout


@needs_bwrap
def test_no_network_and_own_pid_namespace(tmp_path: Path) -> None:
    policy = _setup(tmp_path)
    done = _run(policy, "cat /proc/net/dev | grep -c : ; echo pid=$$")
    lines = done.stdout.split()
    assert lines[0] == "1"  # only the loopback interface
    assert "pid=1" in lines or "pid=2" in lines


def test_required_without_a_mechanism_refuses_with_the_fix(tmp_path: Path) -> None:
    missing = probe(path=str(tmp_path))  # an empty PATH: no bwrap
    assert missing.mechanism is None
    assert "apt install bubblewrap" in missing.notice()
    policy = _setup(tmp_path)
    with pytest.raises(SandboxUnavailable, match="apt install bubblewrap"):
        wrap(["true"], policy, missing, mode="required")
    assert wrap(["true"], policy, missing, mode="auto") == ["true"]


def test_off_leaves_the_command_alone(tmp_path: Path) -> None:
    found = SandboxProbe("bwrap", "/usr/bin/bwrap")
    assert wrap(["echo", "hi"], _setup(tmp_path), found, mode="off") == ["echo", "hi"]


def test_seatbelt_profile_hides_credentials_and_limits_writes(tmp_path: Path) -> None:
    policy = _setup(tmp_path)
    text = profile(policy)
    assert f'(deny file-read* (subpath "{policy.home}/.ssh"))' in text
    assert f'(allow file-write* (subpath "{policy.workspace}"))' in text
    assert "(deny default)" in text


def test_settings_section_rejects_unknown_modes() -> None:
    assert SandboxSettings().mode == "auto"
    with pytest.raises(ValueError, match="mode"):
        SandboxSettings.model_validate({"mode": "sometimes"})


def test_an_untrusted_workspace_cannot_widen_the_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_cli.core.settings.schema import load_settings

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    ws = tmp_path / "ws"
    (ws / ".agent").mkdir(parents=True)
    wide = {
        "mode": "off",
        "write_paths": ["/"],
        "deny_read": ["/srv/secrets"],
        "network": {"allowed_domains": ["evil.example"]},
    }
    (ws / ".agent" / "settings.json").write_text(json.dumps({"sandbox": wide}))
    untrusted = load_settings(ws).sandbox
    assert untrusted.mode == "auto"
    assert untrusted.write_paths == []
    assert untrusted.network.allowed_domains == []
    assert untrusted.deny_read == ["/srv/secrets"]  # narrowing applies either way
    trusted = load_settings(ws, trusted=True).sandbox
    assert (trusted.mode, trusted.write_paths) == ("off", ["/"])
    (ws / ".agent" / "settings.json").write_text('{"sandbox": {"mode": "required"}}')
    assert load_settings(ws).sandbox.mode == "required"  # narrower than the user's auto


def test_the_probe_is_made_again_only_when_what_decides_it_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm process probes once for all its children; a child still sees bubblewrap
    installed, or the user-namespace sysctl the notice names changed."""
    from agent_cli.sandbox import confine

    probes: list[str | None] = []

    def counted(path: str | None = None) -> SandboxProbe:
        probes.append(path)
        return SandboxProbe(None, reason="test", fix="test")

    switch = tmp_path / "unprivileged_userns_clone"
    switch.write_text("0\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setattr(confine, "probe", counted)
    monkeypatch.setattr(confine, "USERNS_SWITCHES", (str(switch),))
    monkeypatch.setenv("PATH", str(bin_dir))
    confine.found()  # PATH and switch are this test's: nothing cached for them yet
    confine.found()
    assert probes == [str(bin_dir)]  # nothing changed: probed once
    switch.write_text("1\n")  # `sysctl -w kernel.unprivileged_userns_clone=1`
    confine.found()
    assert len(probes) == 2
    fake = bin_dir / "bwrap"  # bubblewrap installed
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    confine.found()
    confine.found()
    assert len(probes) == 3
