"""The sandbox as a boundary (issue 50): a hostile repository's commands run unasked inside the
real bubblewrap through `agent run` (the fake model asks for them), and what they tried is
looked for outside: a file that must not appear, a server that must not be reached, a secret
that must not reach the model. Items 2, 5, 7, the credentials files and `--sandbox required`.
Green as root and as an ordinary user (what differs for root is said where it does)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.helpers import last_user_blocks
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli
from tests.sandbox_support import sandbox_workspace

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


def run_commands(
    fake_model: FakeAnthropic, env: dict[str, str], ws: Path, commands: list[str], *flags: str
) -> list[str]:
    """`agent run` in `ws` whose model asks for each command in turn (unasked: the sandbox
    holds them); each command's result as the model got it."""
    fake_model.script.tool_uses(*[("bash", {"command": c}) for c in commands]).text("done")
    proc = run_cli(env, ws, "run", "-p", "go", *flags)
    assert proc.returncode == 0, proc.stderr
    return [str(b["content"]) for b in last_user_blocks(fake_model.bodies()[-1])]


def test_root_inside_can_neither_remount_nor_unhide_nor_set_the_clock(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """Item 5. As root, bwrap without a user namespace of its own left every capability: the
    read-only root was remounted writable and written, a hidden folder unmounted."""
    ws, outside = sandbox_workspace(tmp_path), tmp_path / "outside"
    outside.mkdir()
    ssh = Path(fake_env["HOME"]) / ".ssh"
    ssh.mkdir()
    (ssh / "id_ed25519").write_text("PRIVATE-KEY-PLANTED\n")
    now = "$(date -u '+%Y-%m-%d %H:%M:%S')"  # the clock set to what it says: harmless if it works
    commands = [
        f"mount -o remount,rw,bind / ; echo pwned > {outside}/remounted",
        f"mount -o remount,rw {outside} ; echo pwned > {outside}/remounted-folder",
        "umount ~/.ssh ; cat ~/.ssh/id_ed25519",
        f'date -s "{now}" >/dev/null; echo "date exit $?"',
        "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status",
    ]
    remount, folder, unhide, clock, caps = run_commands(fake_model, fake_env, ws, commands)
    assert not (outside / "remounted").exists(), remount
    assert not (outside / "remounted-folder").exists(), folder
    assert "PRIVATE-KEY-PLANTED" not in unhide
    assert "PRIVATE-KEY-PLANTED" not in str(fake_model.bodies())
    assert "date exit 0" not in clock, clock
    assert [line.split()[1] for line in caps.splitlines()[:3]] == ["0" * 16] * 3, caps


class Listener:
    """A unix socket server outside the sandbox that records every connection it accepts."""

    def __init__(self, address: str | bytes) -> None:
        self.accepted: list[bytes] = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(address)
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    self.accepted.append(conn.recv(100) or b"(connected)")
                except OSError:
                    self.accepted.append(b"(connected)")

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


@pytest.fixture
def listeners(fake_env: dict[str, str]) -> Iterator[dict[str, Listener]]:
    """An ssh-agent-like socket in /tmp, a docker-like one under HOME, an abstract one."""
    folder = Path(tempfile.mkdtemp(prefix="agent-sock-", dir="/tmp"))
    folder.chmod(0o755)
    home_run = Path(fake_env["HOME"]) / ".run"
    home_run.mkdir()
    made = {
        str(folder / "agent.sock"): Listener(str(folder / "agent.sock")),
        str(home_run / "docker.sock"): Listener(str(home_run / "docker.sock")),
        f"@agent-test-{os.getpid()}": Listener(f"\0agent-test-{os.getpid()}".encode()),
    }
    for path in (folder / "agent.sock", home_run / "docker.sock"):
        path.chmod(0o777)
    try:
        yield made
    finally:
        for listener in made.values():
            listener.close()
        shutil.rmtree(folder)


CONNECT = (
    "import socket, sys\n"
    "a = sys.argv[1]\n"
    "a = '\\0' + a[1:] if a.startswith('@') else a\n"
    "try:\n"
    "    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
    "    s.connect(a)\n"
    "    s.sendall(b'SIGN-THIS')\n"
    "    print('connected')\n"
    "except OSError as e:\n"
    "    print('refused:', e)\n"
)


def test_no_host_unix_socket_is_reached_and_no_session_pointer_is_passed(
    fake_model: FakeAnthropic,
    fake_env: dict[str, str],
    tmp_path: Path,
    listeners: dict[str, Listener],
) -> None:
    """Item 7. A read-only bind does not stop connect(): ssh-agent signed, docker.sock and
    `systemd-run --user` answered. Nothing a confined command tries reaches a socket outside."""
    ws = sandbox_workspace(tmp_path)
    agent_sock, docker_sock, _abstract = list(listeners)
    (ws / "connect.py").write_text(CONNECT)
    env = {
        **fake_env,
        "SSH_AUTH_SOCK": agent_sock,
        "DBUS_SESSION_BUS_ADDRESS": f"unix:path={docker_sock}",
        "DOCKER_HOST": f"unix://{docker_sock}",
        "GITHUB_TOKEN": "ghp_PLANTEDTOKEN",
        "MY_SERVICE_API_KEY": "PLANTED-API-KEY",
        "DB_PASSWORD": "PLANTED-PASSWORD",
        "AWS_SECRET_ACCESS_KEY": "PLANTED-AWS",
    }
    commands = [
        *[f"python3 connect.py {address}" for address in listeners],
        'ssh-add -l; SSH_AUTH_SOCK="' + agent_sock + '" ssh-add -l; echo "ssh-add done"',
        f"curl -sS --max-time 5 --unix-socket {docker_sock} http://docker/version; echo curl $?",
        "env",
        "python3 -c 'import socket; a, b = socket.socketpair(); a.send(b\"x\"); print(b.recv(1))'",
    ]
    *tries, ssh_add, curl, shown, pair = run_commands(fake_model, env, ws, commands)
    for listener in listeners.values():
        assert listener.accepted == [], listener.accepted
    assert all("refused:" in result for result in tries), tries
    assert "ssh-add done" in ssh_add
    assert "curl 0" not in curl
    for name in ("SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST", "GITHUB_TOKEN"):
        assert f"{name}=" not in shown
    assert "PLANTED" not in str(fake_model.bodies())
    assert "b'x'" in pair  # a socket pair (no address: nothing outside) still works


@pytest.mark.parametrize("target", ["../../outside", "../../home", "ABSOLUTE"])
def test_a_planted_agent_tmp_link_binds_nothing_outside_and_commands_still_run(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, target: str
) -> None:
    """Item 2. `.agent/tmp -> ../../outside` was bound writable as $TMPDIR (bwrap follows the
    link): an unasked command wrote outside, `../../home` appended to ~/.bashrc; an absolute
    link made every command fail."""
    ws = sandbox_workspace(tmp_path)
    home, outside = Path(fake_env["HOME"]), tmp_path / "outside"
    outside.mkdir()
    (home / ".bashrc").write_text("# the user's\n")
    link = str(outside) if target == "ABSOLUTE" else target
    (ws / ".agent" / "tmp").symlink_to(link)
    commands = [
        'echo pwned > "$TMPDIR/planted"; echo "# pwned" >> "$TMPDIR/.bashrc"; echo "tmp=$TMPDIR"',
        'echo t > "$TMPDIR/t" && cat "$TMPDIR/t"',
    ]
    wrote, works = run_commands(fake_model, fake_env, ws, commands)
    assert "exit code: 0" in wrote, wrote
    assert not (outside / "planted").exists()
    assert not (home / "planted").exists()
    assert (home / ".bashrc").read_text() == "# the user's\n"
    assert works.startswith("t\n"), works
    assert (ws / ".agent" / "tmp").is_symlink()  # the repository's own link is left alone


def test_a_planted_agent_folder_link_binds_nothing_outside(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """Item 2, a level up: `.agent -> ../outside-agent` with its `tmp` folder (the agent keeps
    its own state elsewhere then: it refuses to write through the link)."""
    ws, outside = tmp_path / "ws", tmp_path / "outside-agent"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (outside / "tmp").mkdir(parents=True)
    (ws / ".agent").symlink_to("../outside-agent")
    command = ['echo pwned > "$TMPDIR/planted"']
    state = ("--state-dir", str(tmp_path / "state"))
    (wrote,) = run_commands(fake_model, fake_env, ws, command, *state)
    assert "exit code: 0" in wrote, wrote
    assert list((outside / "tmp").iterdir()) == []


@pytest.mark.parametrize("entry", ["build", "WORKSPACE/build"])
def test_a_write_path_reached_through_a_planted_link_binds_nothing_outside(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, entry: str
) -> None:
    """Item 2's rule for every path bound writable: the user's own `write_paths: ["build"]`
    in a clone that ships `build -> ../outside` (a relative entry made every command fail
    with a bwrap error; an absolute one bound `outside` writable)."""
    ws, outside = sandbox_workspace(tmp_path), tmp_path / "outside"
    outside.mkdir()
    (ws / "build").symlink_to("../outside")
    config = Path(fake_env["HOME"]) / ".config" / "agent"
    config.mkdir(parents=True)
    write_paths = [entry.replace("WORKSPACE", str(ws))]
    (config / "settings.json").write_text(json.dumps({"sandbox": {"write_paths": write_paths}}))
    (wrote,) = run_commands(fake_model, fake_env, ws, ["echo pwned > build/planted"])
    assert not (outside / "planted").exists(), wrote
    assert "bwrap:" not in wrote  # it ran, confined


CREDENTIALS = {
    ".config/gh/hosts.yml": "github.com:\n    oauth_token: gho_PLANTED1\n",
    ".git-credentials": "https://user:PLANTED2@github.com\n",
    ".npmrc": "//registry.npmjs.org/:_authToken=PLANTED3\n",
    ".pypirc": "[pypi]\npassword = PLANTED4\n",
    ".config/gcloud/credentials.db": "PLANTED5",
    ".cargo/credentials.toml": 'token = "PLANTED6"\n',
    ".vault-token": "PLANTED7",
    ".pgpass": "db:5432:*:user:PLANTED8\n",
    ".azure/accessTokens.json": "PLANTED9",
}


def test_credential_files_and_for_root_the_password_hashes_are_out_of_sight(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """`~/.config/gh/hosts.yml`, `~/.git-credentials`, `~/.npmrc` ... were readable, and for
    root `/etc/shadow` (root inside is its owner); so is the runtime directory (podman keeps
    its registry logins there)."""
    ws, home = sandbox_workspace(tmp_path), Path(fake_env["HOME"])
    for name, text in CREDENTIALS.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text)
    runtime = tmp_path / "run-user"
    (runtime / "containers").mkdir(parents=True)
    (runtime / "containers" / "auth.json").write_text('{"auths": {"r": "PLANTED-PODMAN"}}')
    reads = [f"cat ~/{name}; ls ~/{Path(name).parent}" for name in CREDENTIALS]
    reads += ["cat /etc/shadow /etc/gshadow /etc/ssh/*_key", f"cat {runtime}/containers/*"]
    env = {**fake_env, "XDG_RUNTIME_DIR": str(runtime)}
    run_commands(fake_model, env, ws, reads)
    seen = str(fake_model.bodies())
    assert "PLANTED" not in seen
    if os.geteuid() == 0:  # only root could read them outside, and inside before
        for secret in (Path("/etc/shadow"), *Path("/etc/ssh").glob("*_key")):
            lines = [line for line in secret.read_text().splitlines() if len(line) > 20]
            assert not any(line in seen for line in lines), secret


def test_required_mode_never_runs_an_unsandboxed_command_even_in_bypass(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """`--sandbox required` with `--permission-mode bypass` ran an `unsandboxed: true` command
    outside the sandbox."""
    ws, outside = sandbox_workspace(tmp_path), tmp_path / "outside"
    outside.mkdir()
    command = f"touch {outside}/escaped"
    fake_model.script.tool_use("bash", command=command, unsandboxed=True).text("done")
    flags = ("--sandbox", "required", "--permission-mode", "bypass")
    proc = run_cli(fake_env, ws, "run", "-p", "go", *flags)
    assert proc.returncode == 0, proc.stderr
    (result,) = [str(b["content"]) for b in last_user_blocks(fake_model.bodies()[-1])]
    assert not (outside / "escaped").exists()
    assert "sandbox.mode is required" in result


def test_a_script_a_trusted_hook_runs_cannot_be_rewritten_from_inside(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    """README's own example, a trusted workspace's `pre_tool_use` hook `./check.sh`: the
    confined command rewrote check.sh and the next hook ran it outside the sandbox."""
    ws, outside = sandbox_workspace(tmp_path), tmp_path / "outside"
    outside.mkdir()
    (ws / "check.sh").write_text("#!/bin/sh\nexit 0\n")
    (ws / "check.sh").chmod(0o755)
    hooks = {"hooks": {"pre_tool_use": [{"command": "./check.sh"}]}}
    (ws / ".agent" / "settings.json").write_text(json.dumps(hooks))
    env = {**fake_env, "AGENT_TRUST_WORKSPACE": "1"}
    rewrite = f"printf '#!/bin/sh\\ntouch {outside}/ran\\n' > check.sh"
    results = run_commands(fake_model, env, ws, [rewrite, "true"])
    assert not (outside / "ran").exists(), results
    assert (ws / "check.sh").read_text() == "#!/bin/sh\nexit 0\n"
