"""The environment of a program started outside the sandbox: the user's, less credentials.

A hook, a language server or a check is somebody else's program: it gets the user's variables
(PATH, HOME, locale, proxies ...) but not the agent's API key nor anything named like a
credential, unless the user's own settings name it (`pass_env`)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

# the agent's own variables: never handed on, whatever a setting says
AGENT_CREDENTIALS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
_SECRET_WORDS = re.compile(
    r"(^|_)(API_?KEY|ACCESS_?KEY(_ID)?|TOKENS?|SECRET|PASSWORD|PASSWD|PASSPHRASE|KEY|PAT|"
    r"CREDENTIALS?|PRIVATE_?KEY|AUTH|AUTH_SOCK|COOKIE|SESSION_KEY)($|_)"
    r"|_PWD$|PASSWORD|PASSWD|SECRET",  # run together with a prefix: PGPASSWORD, MYSQL_PWD
    re.IGNORECASE,
)
# variables that hand a program a live credential rather than naming one
_SECRET_EXACT = frozenset(
    {
        "SSH_AUTH_SOCK",
        "GPG_AGENT_INFO",
        "KRB5CCNAME",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "DATABASE_URL",
    }  # a password inside a URL
)


def is_secret(name: str) -> bool:
    """Does the variable's name say it holds (or hands out) a credential?"""
    upper = name.upper()
    return upper in _SECRET_EXACT or bool(_SECRET_WORDS.search(upper))


def clean_env(keep: Iterable[str] = (), base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (the process's environment) less credentials; `keep` names those the user's own
    settings pass on anyway (never the agent's own key)."""
    kept = {name for name in keep if name not in AGENT_CREDENTIALS}
    source = os.environ if base is None else base
    return {
        name: value
        for name, value in source.items()
        if name in kept or not (name in AGENT_CREDENTIALS or is_secret(name))
    }


_passed: frozenset[str] = frozenset()


def pass_names(names: Iterable[str]) -> None:
    """The credential-looking variables the user's own settings hand on (`pass_env`)."""
    global _passed
    _passed = frozenset(names)


def default_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The user's environment less credentials (but those `pass_env` names), plus `extra`."""
    return {**clean_env(_passed), **(extra or {})}
