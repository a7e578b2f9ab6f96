"""The seccomp filter bubblewrap loads (`--seccomp FD`): no new unix socket inside the sandbox.

A read-only bind does not stop connect(): a confined command could reach any unix socket it
can see (ssh-agent, docker.sock, the user's systemd and tmux, the agent's own warm process).
Rather than hide folders one by one, socket(AF_UNIX, ...) fails with EPERM, and so does
io_uring_setup (io_uring makes and connects sockets without the socket syscall). A socketpair
stays allowed but for a datagram one, which sendto() could aim at a host socket by path; a
32-bit program creating sockets through socketcall(2), whose arguments the filter cannot see,
gets no socket at all. The kernel's keyrings, which no namespace separates and where a login
may have left a password, are out of reach too (add_key, request_key, keyctl).

The program is classic BPF, assembled here with struct for the native ABIs and their compat
paths (x86_64 with x32, i386, aarch64, arm); a call from any other ABI kills the process. It
is built once per process into a sealed memfd, which bubblewrap reads through
/proc/<agent>/fd/<n>: nothing a confined command can write (whatever sandbox.write_paths says).
"""

from __future__ import annotations

import errno
import fcntl
import functools
import os
import struct

_LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_AND = 0x54  # BPF_ALU | BPF_AND | BPF_K
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
ALLOW, KILL, DENY = 0x7FFF0000, 0x80000000, 0x00050000 | errno.EPERM
NR, ARCH, ARG0, ARG1 = 0, 4, 16, 24  # offsets in struct seccomp_data (low words: little-endian)
X32_BIT = 0x40000000
AF_UNIX, SOCK_DGRAM, SOCK_RAW, SOCK_TYPE_MASK = 1, 2, 3, 0xF  # AF_UNIX makes SOCK_RAW a DGRAM
SYS_SOCKET, SYS_SOCKETPAIR = 1, 8  # socketcall(2)'s first argument
IO_URING_SETUP = 425  # the same number on every ABI
# AUDIT_ARCH_*: (socket, socketpair, socketcall or None, (add_key, request_key, keyctl))
ABIS = {
    0xC000003E: (41, 53, None, (248, 249, 250)),  # x86_64, and x32 once its bit is masked
    0x40000003: (359, 360, 102, (286, 287, 288)),  # i386
    0xC00000B7: (198, 199, None, (217, 218, 219)),  # aarch64
    0x40000028: (281, 288, 102, (309, 310, 311)),  # arm
}
Op = tuple[int, int | str, int | str, int] | str  # (code, jt, jf, k), or a label


def _abi(arch: int, numbers: tuple[int, int, int | None, tuple[int, ...]]) -> list[Op]:
    socket, pair, call, keyrings = numbers
    ops: list[Op] = [f"abi{arch}", (_LD_ABS, 0, 0, NR)]
    if arch == 0xC000003E:
        ops.append((_AND, 0, 0, 0xFFFFFFFF ^ X32_BIT))
    ops += [(_JEQ, "socket", 0, socket), (_JEQ, "pair", 0, pair)]
    ops += [(_JEQ, "deny", 0, nr) for nr in (IO_URING_SETUP, *keyrings)]
    if call is not None:
        ops.append((_JEQ, "call", 0, call))
    return [*ops, (_RET, 0, 0, ALLOW)]


def program(unix_sockets: bool = False) -> list[Op]:
    """The filter; `unix_sockets` (sandbox.allow_unix_sockets): only io_uring and the
    keyrings are refused."""
    ops: list[Op] = [(_LD_ABS, 0, 0, ARCH)]
    ops += [(_JEQ, f"abi{arch}", 0, arch) for arch in ABIS]
    ops.append((_RET, 0, 0, KILL))
    for arch, numbers in ABIS.items():
        ops += _abi(arch, numbers)
    refused = DENY if not unix_sockets else ALLOW
    return [
        *ops,
        "socket",
        (_LD_ABS, 0, 0, ARG0),
        (_JEQ, 0, 1, AF_UNIX),
        (_RET, 0, 0, refused),
        (_RET, 0, 0, ALLOW),
        "pair",
        (_LD_ABS, 0, 0, ARG1),
        (_AND, 0, 0, SOCK_TYPE_MASK),
        (_JEQ, 1, 0, SOCK_DGRAM),
        (_JEQ, 0, 1, SOCK_RAW),
        (_RET, 0, 0, refused),
        (_RET, 0, 0, ALLOW),
        "call",
        (_LD_ABS, 0, 0, ARG0),
        (_JEQ, 1, 0, SYS_SOCKET),
        (_JEQ, 0, 1, SYS_SOCKETPAIR),
        (_RET, 0, 0, refused),
        (_RET, 0, 0, ALLOW),
        "deny",
        (_RET, 0, 0, DENY),
    ]


def assemble(ops: list[Op]) -> bytes:
    """struct sock_filter[]: labels become forward jump offsets."""
    labels, at = {}, 0
    for op in ops:
        if isinstance(op, str):
            labels[op] = at
        else:
            at += 1
    out, at = [], 0
    for op in ops:
        if isinstance(op, str):
            continue
        code, jt, jf, k = op
        jumps = [labels[j] - at - 1 if isinstance(j, str) else j for j in (jt, jf)]
        out.append(struct.pack("=HBBI", code, *jumps, k))
        at += 1
    return b"".join(out)


@functools.cache
def _sealed(unix_sockets: bool, pid: int) -> int:
    """A memfd holding the filter, sealed against any change; one per process (a fork's
    child makes its own: the parent's number may be reused)."""
    del pid  # in the key only
    fd = os.memfd_create("agent-seccomp", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.write(fd, assemble(program(unix_sockets)))
    seals = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    return fd


# platform.machine() of the ABIs above: elsewhere the filter would kill every command's exec
NATIVE = ("x86_64", "amd64", "i386", "i686", "aarch64", "arm64", "armv7l", "armv6l")


def native_known() -> bool:
    import platform

    return platform.machine().lower() in NATIVE


def filter_path(unix_sockets: bool = False) -> str:
    """Where a child of this process opens the filter afresh (its own offset at 0)."""
    pid = os.getpid()
    return f"/proc/{pid}/fd/{_sealed(unix_sockets, pid)}"
