"""Markdown as the REPL shows it: rich's renderer with headings at the left, code blocks
without blank padding rows, and, without colour, readable plain text (no `**`, aligned tables,
headings underlined)."""

from __future__ import annotations

from typing import ClassVar

from markdown_it.token import Token
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Heading, Markdown, MarkdownElement, TableElement
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from agent_cli.ui.render.escapes import terminal_links

UNDERLINES = {"h1": "=", "h2": "-"}


class _Heading(Heading):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text.copy()
        text.justify = "left"
        yield text
        if console.no_color and self.tag in UNDERLINES:  # bold is invisible in plain text
            yield Text(UNDERLINES[self.tag] * min(text.cell_len, options.max_width))


class _CodeBlock(CodeBlock):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # no padding rows: the blank line between blocks already sets the code apart
        padding = (0, 0, 0, 4) if console.no_color else (0, 1)
        code = str(self.text).rstrip()
        yield Syntax(code, self.lexer_name, theme=self.theme, word_wrap=True, padding=padding)


class _Table(TableElement):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for part in super().__rich_console__(console, options):
            if isinstance(part, Table):  # no blank edge rows above and below
                part.show_edge = False
            yield part


class ReplMarkdown(Markdown):
    """Links are hyperlinks only where the terminal draws them (render/escapes.py); elsewhere
    `text (url)`, and an autolink `<url>` just its url, not `url (url)`."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "heading_open": _Heading,
        "fence": _CodeBlock,
        "code_block": _CodeBlock,
        "table_open": _Table,
    }

    def __init__(self, markup: str, code_theme: str = "monokai") -> None:
        super().__init__(markup, code_theme=code_theme, hyperlinks=terminal_links())
        if not self.hyperlinks:
            for token in self.parsed:
                if token.children:
                    token.children = [t for t in token.children if not _autolink(t)]


def _autolink(token: Token) -> bool:
    return token.type in ("link_open", "link_close") and token.markup == "autolink"
