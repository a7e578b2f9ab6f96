"""The web in `agent chat` (a pseudo-terminal): a fetched page as a tool line with its title and
size after a per-domain question, a web search with its query and titles, numbered sources."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic
from tests.fake_model.web import cited, searched
from tests.web_site import WebSite

PAGE = """<!doctype html><html><head><title>httpx changelog</title></head>
<body><h1>Changelog</h1><p>0.28 removed <code>proxies</code>.</p></body></html>"""
RELEASE = ("Release 0.28.0", "https://github.com/encode/httpx/releases/tag/0.28.0")


def test_fetch_and_search_as_the_user_sees_them(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    # in the user's own settings: a workspace asking for private hosts would need trust first
    config = Path(fake_env["HOME"]) / ".config" / "agent"
    config.mkdir(parents=True)
    web = {"search": True, "allow_private_hosts": True}
    (config / "settings.json").write_text(json.dumps({"web": web}))
    fake_model.web_search_supported = True
    with WebSite() as site:
        site.page("/changelog", PAGE)
        url = site.url("/changelog")
        fake_model.script.tool_use("web_fetch", url=url)
        fake_model.script.reply(
            [
                *searched("httpx 0.28 proxies", [RELEASE]),
                cited("It removed the proxies argument.", [(RELEASE[1], RELEASE[0], "proxies")]),
            ]
        )
        term = ChatTerm(fake_env, tmp_path)
        try:
            term.wait_for("you>")
            term.type("what changed in httpx 0.28?")
            term.wait_for("don't ask again for web_fetch(domain:127.0.0.1)")
            term.send("1")
            screen = term.wait_for(lambda t: "Sources:" in t and "working…" not in t)
        finally:
            term.close()
    size = len(PAGE.encode())
    assert f"✔ web_fetch httpx changelog ({size} B)" in screen
    assert '✔ web_search "httpx 0.28 proxies": 1 result — Release 0.28.0' in screen
    assert "It removed the proxies argument. [1]" in screen
    assert f"[1] Release 0.28.0 — {RELEASE[1]}" in screen
    assert screen.index("It removed the proxies argument.") < screen.index("Sources:")
