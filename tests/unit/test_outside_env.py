"""The gate's environment: the user's, less what is named like a credential (issue 50)."""

from __future__ import annotations

import pytest

from agent_cli.core.outside.env import clean_env, is_secret

SECRET = [
    "ANTHROPIC_API_KEY", "GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKENS", "GITLAB_PAT", "OPENAI_KEY",
    "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN", "PGPASSWORD", "MYSQL_PWD",
    "DB_PASSWORD", "NPM_AUTH", "SSH_AUTH_SOCK", "DATABASE_URL", "CLIENT_SECRET",
]  # fmt: skip
PLAIN = [
    "PATH", "HOME", "PWD", "OLDPWD", "LANG", "TERM", "PYTHONPATH", "XDG_RUNTIME_DIR", "EDITOR",
    "TOKENIZERS_PARALLELISM", "KEYTIMEOUT", "GPG_TTY", "LS_COLORS", "VIRTUAL_ENV",
]  # fmt: skip


@pytest.mark.parametrize("name", SECRET)
def test_a_credential_name_is_withheld(name: str) -> None:
    assert is_secret(name)


@pytest.mark.parametrize("name", PLAIN)
def test_an_ordinary_variable_is_kept(name: str) -> None:
    assert not is_secret(name)


def test_pass_env_hands_on_what_the_user_names_but_never_the_agents_key() -> None:
    base = {"GITHUB_TOKEN": "t", "ANTHROPIC_API_KEY": "k", "PATH": "/bin", "PGPASSWORD": "p"}
    assert clean_env(base=base) == {"PATH": "/bin"}
    kept = clean_env(["GITHUB_TOKEN", "ANTHROPIC_API_KEY"], base=base)
    assert kept == {"GITHUB_TOKEN": "t", "PATH": "/bin"}
