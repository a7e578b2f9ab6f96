"""A fetched body as text the model can read: HTML as Markdown (markdownify over
BeautifulSoup), JSON pretty-printed, PDF as its text (pypdf), other text as it is.

The libraries are imported here, when a page arrives, never at start-up.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass

from agent_cli.tools.web_http import Page
from agent_cli.tools.web_rules import WebRefused

HTML_TYPES = ("text/html", "application/xhtml+xml")
DROPPED_TAGS = ("script", "style", "noscript", "template", "svg", "iframe", "form")
_BLANK_RUNS = re.compile(r"\n{3,}")


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
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(body, "html.parser", from_encoding=charset)
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup(DROPPED_TAGS):
        tag.decompose()
    if soup.head is not None:
        soup.head.decompose()
    converter = MarkdownConverter(heading_style="ATX", bullets="-", escape_underscores=False)
    text = converter.convert_soup(soup)
    return Converted(title, _tidy(text), "html")


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
