"""Markdown of catalog entry bodies and fields, rendered by markdown-it-py in CommonMark mode.

Why a library: CommonMark's block rules are subtle where hand-written converters go wrong on real text (a
hard-wrapped line starting "2025) and v5" is no list item: only a list starting at 1 may interrupt a
paragraph), and markdown-it-py is maintained, follows the spec's test suite and is already installed.

Safety holds by configuration, not by filtering afterwards: raw HTML is off (a `<script>` in a body is shown
as text), images are off (no request to a third party from our pages; `![alt](url)` reads as its text or a
link), every text part is escaped by the renderer, and a link is made only for an http(s) URL with a host
(`javascript:`, `data:` and relative links are shown as the text they are). Links carry only `href` (no title
attribute), code blocks carry no class, and headings shift down (`heading_offset`) so the page keeps its own
h1 and h2. Nothing is dropped: what is not markup stays as text. Prose dashes read as typeset ("--" as "–",
"---" as "—"; never inside code).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup, escape

ALLOWED_TAGS = frozenset(
    {"h2", "h3", "h4", "h5", "h6", "p", "ul", "ol", "li", "pre", "code", "a", "strong", "em"}
    | {"blockquote", "hr", "br"}
)
ALLOWED_ATTRIBUTES = {"a": {"href"}, "ol": {"start"}}


def is_web_url(url: str) -> bool:
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False
    return parts.scheme in {"http", "https"} and bool(parts.netloc)


def link_open(renderer: Any, tokens: Sequence[Token], index: int, options: Any, env: Any) -> str:
    href = str(tokens[index].attrGet("href") or "")
    if not is_web_url(href):  # an empty destination ("[a]()") is not validated by the parser: its text stays, unlinked
        tokens[index].meta["unlinked"] = True
        return ""
    return f'<a href="{escape(href)}">'


def link_close(renderer: Any, tokens: Sequence[Token], index: int, options: Any, env: Any) -> str:
    depth = 0
    for opener in reversed(tokens[:index]):  # the link_open this closes: links do not nest, but stay exact
        if opener.type == "link_close":
            depth += 1
        elif opener.type == "link_open" and depth:
            depth -= 1
        elif opener.type == "link_open":
            return "" if opener.meta.get("unlinked") else "</a>"
    return "</a>"


def code_block(renderer: Any, tokens: Sequence[Token], index: int, options: Any, env: Any) -> str:
    return f"<pre><code>{escape(tokens[index].content)}</code></pre>\n"


@cache
def parser(heading_offset: int) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "typographer": True}).disable("image").enable("replacements")
    md.validateLink = is_web_url  # type: ignore[method-assign]
    md.add_render_rule("link_open", link_open)
    md.add_render_rule("link_close", link_close)
    md.add_render_rule("fence", code_block)
    md.add_render_rule("code_block", code_block)

    def heading(renderer: Any, tokens: Sequence[Token], index: int, options: Any, env: Any) -> str:
        token = tokens[index]
        level = min(6, int(token.tag[1]) + heading_offset)
        return f"<h{level}>" if token.nesting == 1 else f"</h{level}>\n"

    md.add_render_rule("heading_open", heading)
    md.add_render_rule("heading_close", heading)
    return md


def render_inline(text: str) -> Markup:
    """One text field with inline markup only (code, strong, emphasis, http(s) links), safely escaped."""
    return Markup(parser(1).renderInline(text.strip()))  # the renderer escapes every text part


@lru_cache(maxsize=128)  # an entry's body is rendered once, not on every view of its page
def render_markdown(text: str, heading_offset: int = 1) -> Markup:
    """The body as safe HTML (see the module docstring); an h1 in the text becomes at least an h2."""
    return Markup(parser(max(1, heading_offset)).render(text).strip())  # the renderer escapes every text part
