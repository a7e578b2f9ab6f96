"""The sandbox confines a real command with real bubblewrap (skipped only where bwrap is absent)."""

from __future__ import annotations

import errno
import json
import os
import platform
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from agent_cli.core.settings.sandbox import SandboxSettings
from agent_cli.ext.sandbox.created import Watch
from agent_cli.ext.sandbox.environment import withheld
from agent_cli.ext.sandbox.gitconfig import config_is_plain
from agent_cli.ext.sandbox.gitindex import gitlinks
from agent_cli.ext.sandbox.handoff import Handoff
from agent_cli.ext.sandbox.policy import SandboxPolicy
from agent_cli.ext.sandbox.probe import SandboxProbe, probe
from agent_cli.ext.sandbox.seatbelt import profile
from agent_cli.ext.sandbox.wrap import SandboxUnavailable, denial_note, wrap

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
        "allow_unix_sockets": True,
    }
    (ws / ".agent" / "settings.json").write_text(json.dumps({"sandbox": wide}))
    untrusted = load_settings(ws).sandbox
    assert untrusted.mode == "auto"
    assert untrusted.write_paths == []
    assert not untrusted.allow_unix_sockets
    assert untrusted.network.allowed_domains == []
    assert untrusted.deny_read == ["/srv/secrets"]  # narrowing applies either way
    trusted = load_settings(ws, trusted=True).sandbox
    assert (trusted.mode, trusted.write_paths) == ("off", ["/"])
    assert trusted.allow_unix_sockets
    (ws / ".agent" / "settings.json").write_text('{"sandbox": {"mode": "required"}}')
    assert load_settings(ws).sandbox.mode == "required"  # narrower than the user's auto


def test_the_probe_is_made_again_only_when_what_decides_it_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm process probes once for all its children; a child still sees bubblewrap
    installed, or the user-namespace sysctl the notice names changed."""
    from agent_cli.ext.sandbox import probe as mechanism

    probes: list[str | None] = []

    def counted(path: str | None = None) -> SandboxProbe:
        probes.append(path)
        return SandboxProbe(None, reason="test", fix="test")

    switch = tmp_path / "unprivileged_userns_clone"
    switch.write_text("0\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setattr(mechanism, "probe", counted)
    monkeypatch.setattr(mechanism, "USERNS_SWITCHES", (str(switch),))
    monkeypatch.setenv("PATH", str(bin_dir))
    mechanism.found()  # PATH and switch are this test's: nothing cached for them yet
    mechanism.found()
    assert probes == [str(bin_dir)]  # nothing changed: probed once
    switch.write_text("1\n")  # `sysctl -w kernel.unprivileged_userns_clone=1`
    mechanism.found()
    assert len(probes) == 2
    fake = bin_dir / "bwrap"  # bubblewrap installed
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    mechanism.found()
    mechanism.found()
    assert len(probes) == 3


# the socket filter on the compat paths: raw syscalls from machine code, returning eax
COMPAT_PROBE = r"""
import ctypes, json, mmap, struct
u = lambda n: struct.pack("<I", n & 0xFFFFFFFF)
def run(code):
    page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    return ctypes.CFUNCTYPE(ctypes.c_int)(address)()
def int80(nr, a, b, c):  # the i386 table, from a 64-bit process
    load = b"\xb8" + u(nr) + b"\xbb" + u(a) + b"\xb9" + u(b) + b"\xba" + u(c)
    return run(b"\x53" + load + b"\xcd\x80\x5b\xc3")  # push rbx; int 0x80; pop rbx; ret
def native(nr, a, b, c):
    load = b"\xb8" + u(nr) + b"\xbf" + u(a) + b"\xbe" + u(b) + b"\xba" + u(c)
    return run(load + b"\x0f\x05\xc3")  # syscall; ret
x32 = lambda nr, a, b, c: native(0x40000000 | nr, a, b, c)
args = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x40)  # MAP_32BIT
args.write(struct.pack("<III", 1, 1, 0))  # AF_UNIX, SOCK_STREAM, 0
where = ctypes.addressof(ctypes.c_char.from_buffer(args))
print(json.dumps({
    "i386 socket": int80(359, 1, 1, 0),
    "i386 socketcall": int80(102, 1, where, 0),
    "x32 socket": x32(41, 1, 1, 0),
    "keyctl": native(250, 0, 0xFFFFFFFD, 0),  # KEYCTL_GET_KEYRING_ID of the session keyring
}))
"""


@needs_bwrap
@pytest.mark.skipif(platform.machine() != "x86_64", reason="x86_64 machine code")
def test_no_abi_of_the_machine_makes_a_unix_socket_inside(tmp_path: Path) -> None:
    """socket(AF_UNIX) through the i386 table (int 0x80, both socket and socketcall) and the
    x32 one: the filter must hold on each path the kernel offers, or it holds on none. The
    session keyring, which no namespace separates, is out of reach too."""
    policy = _setup(tmp_path)
    (policy.workspace / "probe.py").write_text(COMPAT_PROBE)
    python = ["python3", "probe.py"]
    outside = subprocess.run(python, cwd=policy.workspace, capture_output=True, text=True)
    inside = _run(policy, "python3 probe.py")
    assert inside.returncode == 0, inside.stderr
    got, live = json.loads(inside.stdout), json.loads(outside.stdout)
    for path in ("i386 socket", "i386 socketcall", "x32 socket", "keyctl"):
        assert got[path] == -errno.EPERM, (path, got, live)
    assert live["i386 socket"] >= 0 or live["i386 socket"] == -errno.ENOSYS  # a live path here


@needs_bwrap
@pytest.mark.parametrize("allowed", [False, True])
def test_unix_sockets_are_refused_unless_the_user_allows_them(
    tmp_path: Path, allowed: bool
) -> None:
    policy = replace(_setup(tmp_path), unix_sockets=allowed)
    code = "import socket; socket.socket(socket.AF_UNIX); print('made')"
    done = _run(policy, f'python3 -c "{code}"')
    assert ("made" in done.stdout) is allowed, done.stderr
    assert ("Operation not permitted" in done.stderr) is not allowed


@needs_bwrap
def test_a_file_run_later_stays_as_it_is_and_one_put_in_its_place_is_moved_aside(
    tmp_path: Path,
) -> None:
    """`run_later`: workspace files the agent runs outside later (a trusted hook's script).
    A real file is read-only and its folders cannot be moved; for a link, what it points at
    is read-only and a link or file put in its place, like a file where none was, is moved
    aside once the command ends."""
    policy = _setup(tmp_path)
    ws = policy.workspace
    (ws / "scripts").mkdir()
    (ws / "scripts" / "check.sh").write_text("#!/bin/sh\necho fine\n")
    (ws / "tools").mkdir()
    (ws / "tools" / "lint.sh").write_text("#!/bin/sh\necho lint\n")
    (ws / "lint.sh").symlink_to("tools/lint.sh")
    later = (ws / "scripts" / "check.sh", ws / "lint.sh", ws / "status.sh")
    policy = replace(policy, run_later=later)
    watch = Watch.before(policy)
    hostile = (
        "echo evil >> scripts/check.sh; mv scripts scripts.old; mkdir -p scripts; "
        "echo evil > tools/lint.sh; rm -f lint.sh; echo evil > lint.sh; echo evil > status.sh"
    )
    _run(policy, hostile)
    notes = watch.settle()
    assert (ws / "scripts" / "check.sh").read_text() == "#!/bin/sh\necho fine\n"
    assert (ws / "tools" / "lint.sh").read_text() == "#!/bin/sh\necho lint\n"
    assert not (ws / "lint.sh").exists()
    assert not (ws / "status.sh").exists()
    assert (ws / "status.sh.sandbox-rejected").read_text() == "evil\n"
    assert any("lint.sh is protected; the command replaced it" in note for note in notes)


def test_a_new_git_config_passes_only_as_git_init_writes_it() -> None:
    plain = (
        "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
        '[remote "origin"]\n\turl = https://example.com/r.git\n'
        "\tfetch = +refs/heads/*:refs/remotes/origin/*\n[user]\n\tname = U\n"
    )
    assert config_is_plain(plain)
    for planted in (
        "[core]\n\tfsmonitor = touch /tmp/x\n",
        "[core]\n\thooksPath = hooks\n",
        '[filter "x"]\n\tclean = sh evil\n',
        "[include]\n\tpath = ../elsewhere\n",
        '[remote "o"]\n\turl = ext::sh -c evil\n',
        "[core] pager = less\n",
        "[core]\n\teditor = \\\nvi\n",
    ):
        assert not config_is_plain(planted), planted


def test_the_gitlinks_of_an_index_are_read_in_every_version(tmp_path: Path) -> None:
    """Versions 2, 3 (extended flags), 4 (prefix-compressed names), and a split index."""
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    git = ["git", "-C", str(repo)]
    for n in range(12):
        (repo / f"d{n}").mkdir()
        (repo / f"d{n}" / "f.txt").write_text(str(n))
    subprocess.run([*git, "add", "."], check=True)
    links = ["d3/sub mod", "d7/x", "zz/é/deep"]
    for link in links:
        info = f"160000,{'1' * 40},{link}"
        subprocess.run([*git, "update-index", "--add", "--cacheinfo", info], check=True)
    subprocess.run([*git, "update-index", "--skip-worktree", "d1/f.txt"], check=True)
    for version in ("2", "3", "4"):
        subprocess.run([*git, "update-index", "--index-version", version], check=True)
        assert sorted(gitlinks(repo) or ()) == sorted(links), version
    subprocess.run([*git, "update-index", "--split-index"], check=True)
    subprocess.run([*git, "update-index", "--add", "--cacheinfo", f"160000,{'2' * 40},new"])
    assert sorted(gitlinks(repo) or ()) == sorted([*links, "new"])


def test_session_pointers_and_credential_names_are_withheld() -> None:
    for name in ("SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "XDG_RUNTIME_DIR",
                 "GITHUB_TOKEN", "OPENAI_API_KEY", "MY_CLIENT_SECRET", "PGPASSWORD",
                 "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):  # fmt: skip
        assert withheld(name), name
    for name in (
        "PATH",
        "HOME",
        "LANG",
        "VIRTUAL_ENV",
        "TOKENIZERS_PARALLELISM",
        "GIT_AUTHOR_NAME",
    ):
        assert not withheld(name), name


@needs_bwrap
@pytest.mark.skipif(not probe().bind_fd, reason="bubblewrap before 0.7 binds by path only")
def test_a_folder_swapped_for_a_link_between_the_check_and_the_mount_binds_nothing_outside(
    tmp_path: Path,
) -> None:
    """`.claude` is bound onto itself (so it cannot be renamed). A confined command running
    beside (a background job) swaps it for a link to a folder outside just after the agent
    checked it: bwrap, binding by path, followed the link and bound the outside folder
    writable. The swap is made here, between building the argv and starting it: bwrap binds
    the folder checked, by descriptor, and refuses to go on once it sees the swap."""
    policy = _setup(tmp_path)
    ws, outside = policy.workspace, tmp_path / "outside"
    outside.mkdir()
    (ws / ".claude").mkdir()
    handoff = Handoff()
    command = f"echo pwned > {outside}/planted; echo done"
    argv = wrap(["bash", "-c", command], policy, probe(), mode="required", handoff=handoff)
    (ws / ".claude").rename(ws / ".claude.moved")
    (ws / ".claude").symlink_to("../../outside")
    try:
        done = subprocess.run(argv, pass_fds=handoff.fds, capture_output=True, text=True)
    finally:
        handoff.close()
    assert not (outside / "planted").exists()
    assert "done" in done.stdout or "Race condition" in done.stderr, done.stderr


@needs_bwrap
def test_no_datagram_socket_pair_is_made_inside_however_it_is_asked(tmp_path: Path) -> None:
    """For AF_UNIX the kernel makes a SOCK_RAW pair a datagram one, whose sendto reaches any
    host datagram socket by path (journald, syslog): refused like SOCK_DGRAM; a stream pair,
    which reaches nothing, still works (asyncio needs it)."""
    policy = _setup(tmp_path)
    code = (
        "import socket\n"
        "for kind in (socket.SOCK_DGRAM, 3, socket.SOCK_STREAM):\n"
        "    try:\n"
        "        socket.socketpair(socket.AF_UNIX, kind); print(kind, 'made')\n"
        "    except PermissionError:\n"
        "        print(kind, 'refused')\n"
    )
    (policy.workspace / "pairs.py").write_text(code)
    done = _run(policy, "python3 pairs.py")
    assert done.stdout.split("\n")[:3] == ["2 refused", "3 refused", "1 made"], done.stderr


def test_the_probe_never_starts_a_workspaces_own_bwrap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With an empty or relative PATH entry a lookup from the workspace found its `bwrap`,
    and the probe ran it outside the sandbox, with the agent's environment (issue 50)."""
    from agent_cli.ext.sandbox.probe import probe

    planted = tmp_path / "bwrap"
    planted.write_text(f"#!/bin/sh\necho ran >> {tmp_path / 'ran.txt'}\n")
    planted.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    found = probe(":" + os.environ["PATH"])
    assert not (tmp_path / "ran.txt").exists()
    assert found.executable != "bwrap"
    assert found.executable is None or Path(found.executable).is_absolute()
