"""A small, safe markdown subset for catalog entry bodies: headings, paragraphs, lists, code and links.

Why not a markdown library: the bodies are research notes written in a narrow subset, and the one thing this
converter must guarantee is that no entry can put markup on our pages. Here that holds by construction: every
piece of the input's text goes through `escape`, and the only tags in the output are the fixed ones this
module writes (`ALLOWED_TAGS`), with one attribute, `href`, only for http(s) URLs. Raw HTML in a body is shown
as text. Anything outside the subset (tables, images, block quotes, emphasis with underscores) is shown as the
text it is.

Subset: ATX headings (`#`-`######`, shifted down by `heading_offset` so the page keeps its own h1/h2),
paragraphs separated by blank lines, `-`/`*`/`+` and `1.` lists (continuation lines join the item), fenced
code blocks (```), inline `code`, **strong**, *emphasis* and [text](http(s) URL) links.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from markupsafe import Markup, escape

ALLOWED_TAGS = frozenset({"h2", "h3", "h4", "h5", "h6", "p", "ul", "ol", "li", "pre", "code", "a", "strong", "em"})
HEADING = re.compile(r"^(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
BULLET = re.compile(r"^\s{0,3}[-*+]\s+(.*)$")
NUMBERED = re.compile(r"^\s{0,3}\d{1,9}[.)]\s+(.*)$")
FENCE = re.compile(r"^\s{0,3}```")
# Spans are bounded so that no input makes the scan quadratic in a long paragraph.
INLINE = re.compile(
    r"(?P<ticks>`{1,3})(?P<code>[^`].{0,1999}?)(?P=ticks)"
    r"|\[(?P<text>[^\]\n]{1,500})\]\((?P<url>[^\s()]{1,2000})\)"
    r"|\*\*(?P<strong>[^\s*](?:.{0,500}?[^\s*])?)\*\*"
    r"|(?<![\w*])\*(?P<em>[^\s*](?:[^*]{0,500}?[^\s*])?)\*(?![\w*])"
)


def is_web_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in {"http", "https"} and bool(parts.netloc)


def inline(text: str) -> str:
    """Inline markup of one block's text, escaped."""
    out: list[str] = []
    position = 0
    for match in INLINE.finditer(text):
        out.append(escape(text[position : match.start()]))
        position = match.end()
        if match.group("ticks"):
            out.append(f"<code>{escape(match.group('code').strip())}</code>")
        elif match.group("url") is not None:
            url = match.group("url")
            if is_web_url(url):
                out.append(f'<a href="{escape(url)}">{inline(match.group("text"))}</a>')
            else:  # javascript:, data:, relative paths: shown as written, never linked
                out.append(escape(match.group(0)))
        elif match.group("strong") is not None:
            out.append(f"<strong>{inline(match.group('strong'))}</strong>")
        else:
            out.append(f"<em>{inline(match.group('em'))}</em>")
    out.append(escape(text[position:]))
    return "".join(out)


class Blocks:
    """Collects output blocks while the lines are read."""

    def __init__(self, heading_offset: int) -> None:
        self.heading_offset = heading_offset
        self.html: list[str] = []
        self.paragraph: list[str] = []
        self.list_kind = ""
        self.items: list[list[str]] = []

    def close_paragraph(self) -> None:
        if self.paragraph:
            self.html.append(f"<p>{inline(' '.join(self.paragraph))}</p>")
            self.paragraph = []

    def close_list(self) -> None:
        if self.items:
            body = "".join(f"<li>{inline(' '.join(item))}</li>" for item in self.items)
            self.html.append(f"<{self.list_kind}>{body}</{self.list_kind}>")
            self.items, self.list_kind = [], ""

    def close(self) -> None:
        self.close_paragraph()
        self.close_list()

    def heading(self, hashes: str, text: str) -> None:
        self.close()
        level = min(6, len(hashes) + self.heading_offset)
        self.html.append(f"<h{level}>{inline(text)}</h{level}>")

    def item(self, kind: str, text: str) -> None:
        self.close_paragraph()
        if kind != self.list_kind:
            self.close_list()
            self.list_kind = kind
        self.items.append([text.strip()])

    def text(self, line: str) -> None:
        if self.items and line[:1].isspace():  # an indented line continues the list item
            self.items[-1].append(line.strip())
            return
        self.close_list()
        self.paragraph.append(line.strip())


def render_inline(text: str) -> Markup:
    """One text field with inline markup only (code, strong, emphasis, http(s) links), safely escaped."""
    return Markup(inline(text.strip()))  # inline() escapes every text part


def render_markdown(text: str, heading_offset: int = 1) -> Markup:
    """The body as safe HTML (see the module docstring for the subset)."""
    blocks = Blocks(max(1, heading_offset))  # h1 stays the page's own
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if FENCE.match(line):
            blocks.close()
            code = []
            while index < len(lines) and not FENCE.match(lines[index]):
                code.append(lines[index])
                index += 1
            index += 1  # the closing fence (or the end of the text)
            blocks.html.append(f"<pre><code>{escape(chr(10).join(code))}</code></pre>")
        elif not line.strip():
            blocks.close()
        elif heading := HEADING.match(line):
            blocks.heading(heading.group(1), heading.group(2))
        elif bullet := BULLET.match(line):
            blocks.item("ul", bullet.group(1))
        elif numbered := NUMBERED.match(line):
            blocks.item("ol", numbered.group(1))
        else:
            blocks.text(line)
    blocks.close()
    return Markup("\n".join(blocks.html))  # every text part above went through escape()
