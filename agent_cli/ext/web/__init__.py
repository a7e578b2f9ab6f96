"""The web: `web_fetch` (a page's text, through the hosts `web` allows: tools/host_rules.py, which
the sandbox's network rules share). Offered when `web.fetch` is on (the default): the tool is
declared here, and what fetches (fetch.py: its HTTP and conversion modules, the host rules too)
is imported when it first fetches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import Field

from agent_cli.core.tool_contract import AnyTool, Tool, ToolContext, ToolInput, ToolResult
from agent_cli.runtime.extensions.contract import Extension, ExtensionContext

if TYPE_CHECKING:
    from agent_cli.tools.host_rules import Resolver


class WebFetchInput(ToolInput):
    url: str = Field(min_length=1, max_length=4_000, description="The http(s) URL to fetch.")
    prompt: str | None = Field(
        default=None,
        max_length=1_000,
        description="What you are looking for on the page; passages about it come first "
        "when the page is too long to show whole.",
    )


class WebFetch(Tool[WebFetchInput]):
    name = "web_fetch"
    input_model = WebFetchInput
    read_only = True

    def __init__(self, resolver: Resolver | None = None) -> None:
        self.resolver = resolver  # tests give names their own addresses; None: the system's
        self._cache: dict[str, tuple[float, ToolResult]] = {}  # url -> result, this session's

    def describe_call(self, args: WebFetchInput) -> str:
        return f"web_fetch {args.url}"

    async def run(self, args: WebFetchInput, ctx: ToolContext) -> ToolResult:
        from agent_cli.ext.web.fetch import fetch_cached
        from agent_cli.tools.host_rules import system_resolver

        resolver = self.resolver or system_resolver
        return await fetch_cached(args.url, args.prompt, ctx, resolver, self._cache)


def _tools(context: ExtensionContext) -> Sequence[AnyTool]:
    return [WebFetch()] if context.settings.web.fetch else []


EXTENSION = Extension(
    name="web", about="web_fetch: a page's text, from the hosts allowed", tools=_tools
)
