"""Read-only shell detection and the deny list."""

from __future__ import annotations

import pytest

from agent_cli.tools.shell.rules import denied, is_read_only

READ_ONLY = [
    "ls",
    "ls -la src",
    "cat a.txt",
    "grep -n foo src/a.py",
    "git status",
    "git log --oneline -5",
    "git diff HEAD~1",
    "git show HEAD",
    "find . -name '*.py'",
    "ls | grep a",
    "cat a.txt | head -5",
    "find . -name x",
    "find . -name x -print",
    "git log --format=%h:%s -3",
    "git show HEAD^:src/a.py",
    "grep -rn 'two words' src",
    'grep "a|b" a.txt',
    "sort -r -k2 a.txt",
    "sort --check a.txt",
    "git diff --no-ext-diff",
]
NOT_READ_ONLY = [
    "",
    "rm a.txt",
    "git push",
    "git commit -m x",
    "git diff --output=x",
    "find . -delete",
    "find . -exec rm {} ;",
    "ls > x",
    "cat < a",
    "ls; rm x",
    "ls && rm x",
    "ls || rm x",
    "ls & rm x",
    "cat `x`",
    "cat $(x)",
    "echo $HOME",
    "cat /etc/passwd",
    "cat ../outside",
    "cat a | sort -o f",
    "rg --pre=sh x",
    "python3 x.py",
    "ls\nrm x",
    # review findings, verbatim: options that write a file or run a program
    "find . -fprintf out1.txt %p",
    "find . -fprint0 out5.txt",
    "sort -oout2.txt a.txt",
    "sort --out=out3.txt a.txt",
    "sort --compress-program=PROG a.txt",
    "git diff --outp=out4.txt",
    # ... and brace expansion past the path check
    "cat {/etc,.}/passwd",
    "cat {..,x}/outside.txt",
    "cat {.,.}./outside.txt",
    "grep -r root {/etc,}",
    "cat {~,.}/.ssh/id_rsa",
    # more of the same kinds: only plain words are read-only
    "sort -rno out a.txt",
    "sort -T /tmp a.txt",
    "sort --files0-from=list",
    "wc --files0-from=list",
    "git show --textconv HEAD",
    "git diff --ext HEAD",
    "rg --hostname-bin=sh x",
    "find . -okdir rm {} ;",
    "ls *",
    "cat a?",
    "cat [ab].txt",
    "cat \\/etc/passwd",
    'cat "$HOME/x"',
    "cat ~/x",
    "cat x=~/y",
    "grep -f/etc/shadow a.txt",
    "grep --file=../x a.txt",
    "cat 'unterminated",
    "ls # comment",
    "ls | | cat",
    "ls |",
    "echo !!",
]


@pytest.mark.parametrize("command", READ_ONLY)
def test_plainly_read_only(command: str):
    assert is_read_only(command)


@pytest.mark.parametrize("command", NOT_READ_ONLY)
def test_not_read_only(command: str):
    assert not is_read_only(command)


DENIED = [
    "sudo ls",
    "ls && sudo rm x",
    "/usr/bin/sudo ls",
    "env FOO=1 sudo ls",
    "timeout 5 sudo ls",
    "echo $(sudo id)",
    "bash -c 'sudo ls'",
    "su root",
    "rm -rf /",
    "rm -fr /*",
    "rm -rf ~",
    "rm -r /usr",
    "rm -rf $HOME",
    "rm --no-preserve-root -rf /",
    "mkfs.ext4 /dev/sda1",
    "dd if=/dev/zero of=disk.img",
    "shutdown -h now",
    "cat x; reboot",
    ":(){ :|:& };:",
    "echo x > /dev/sda",
    # review findings, verbatim: shells and eval around the deny list
    'bash -lc "sudo ls"',
    "sh -ec 'sudo ls'",
    "eval sudo ls",
    "bash -l -c 'sudo ls'",
    "\\sudo ls",
]
ALLOWED = ["rm -rf build", "rm -rf ./build/*", "echo sudo", "grep sudo notes.txt", "ls /"]


@pytest.mark.parametrize("command", DENIED)
def test_deny_list(command: str):
    assert denied(command)


@pytest.mark.parametrize("command", ALLOWED)
def test_not_on_deny_list(command: str):
    assert denied(command) is None


@pytest.mark.parametrize("command", ["seq 1 5000", "seq -w 1 10 | head -3", "seq -s, 5"])
def test_seq_is_read_only(command: str):
    assert is_read_only(command)  # it only prints numbers: not asked (issue 37 item 10)
