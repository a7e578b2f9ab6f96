"""The web: `web_fetch` (a page's text, through the hosts `web` allows: tools/host_rules.py, which
the sandbox's network rules share). Offered when `web.fetch` is on (the default); its HTTP and
conversion modules are imported when it first fetches."""

from __future__ import annotations

from collections.abc import Sequence

from agent_cli.core.tool_contract import AnyTool
from agent_cli.runtime.extensions.contract import Extension, ExtensionContext


def _tools(context: ExtensionContext) -> Sequence[AnyTool]:
    if not context.settings.web.fetch:
        return []
    from agent_cli.ext.web.fetch import WebFetch

    return [WebFetch()]


EXTENSION = Extension(
    name="web", about="web_fetch: a page's text, from the hosts allowed", tools=_tools
)
