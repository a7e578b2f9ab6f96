"""A fetched body as text the model can read: HTML as Markdown (html-to-markdown, a Rust
converter: a 1 MB page in about 0.2 s, where markdownify over BeautifulSoup took 5-7 s here),
JSON pretty-printed, PDF as its text (pypdf), other text as it is.

The libraries are imported here, when a page arrives, never at start-up.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser

from agent_cli.ext.web.http import Page
from agent_cli.tools.host_rules import WebRefused

HTML_TYPES = ("text/html", "application/xhtml+xml")
DROPPED_TAGS = ["script", "style", "noscript", "template", "svg", "iframe", "object", "embed"]
_BLANK_RUNS = re.compile(r"\n{3,}")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
TITLE_SCAN = 65_536  # the title lives in the head


@dataclass
class Converted:
    title: str
    text: str
    kind: str  # html, json, pdf or text


def convert(page: Page) -> Converted:
    kind = page.content_type
    sniffed_html = not kind and page.body.lstrip()[:15].lower().startswith(b"<!doctype")
    if kind in HTML_TYPES or sniffed_html:
        return html_to_markdown(page.body, page.charset)
    if kind == "application/pdf":
        return pdf_to_text(page.body)
    if kind == "application/json" or kind.endswith("+json"):
        return _json(_decode(page))
    if kind.startswith("text/") or kind in ("application/xml", "application/javascript", ""):
        return Converted("", _decode(page), "text")
    raise WebRefused(
        f"{page.url} is {kind}: web_fetch reads text, HTML, JSON and PDF, not this content type."
    )


def html_to_markdown(body: bytes, charset: str | None) -> Converted:
    from html_to_markdown import ConversionOptions, convert

    html = _decode_html(body, charset)
    options = ConversionOptions(
        extract_metadata=False, heading_style="atx", bullets="-", exclude_selectors=DROPPED_TAGS
    )
    markdown = convert(html, options).content or ""
    return Converted(page_title(html[:TITLE_SCAN]), _tidy(markdown), "html")


class _TitleParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.inside = self.done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.inside = tag == "title" and not self.done

    def handle_endtag(self, tag: str) -> None:
        if tag == "title" and self.inside:
            self.inside, self.done = False, True

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.parts.append(data)


def page_title(html: str) -> str:
    parser = _TitleParser()
    parser.feed(html)
    return " ".join("".join(parser.parts).split())


def _decode_html(body: bytes, charset: str | None) -> str:
    meta = _META_CHARSET.search(body[:4096])
    for name in (charset, meta.group(1).decode() if meta else None, "utf-8"):
        if name:
            try:
                return body.decode(name, errors="replace")
            except LookupError:
                continue
    return body.decode("utf-8", errors="replace")


def pdf_to_text(body: bytes) -> Converted:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(body))
        pages = [page.extract_text() or "" for page in reader.pages]
        title = str(reader.metadata.get("/Title") or "") if reader.metadata else ""
    except (PdfReadError, ValueError, KeyError) as e:
        raise WebRefused(f"The PDF could not be read ({type(e).__name__}: {e}).") from e
    numbered = [f"--- page {i} ---\n{text.strip()}" for i, text in enumerate(pages, 1)]
    return Converted(title, "\n\n".join(numbered), "pdf")


def _json(text: str) -> Converted:
    try:
        return Converted("", json.dumps(json.loads(text), indent=2, ensure_ascii=False), "json")
    except ValueError:
        return Converted("", text, "text")


def _decode(page: Page) -> str:
    try:
        return page.body.decode(page.charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        return page.body.decode("utf-8", errors="replace")


def _tidy(text: str) -> str:
    lines = [line.rstrip() for line in text.splitlines()]
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()
