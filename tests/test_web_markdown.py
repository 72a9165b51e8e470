"""Catalog markdown (CommonMark through markdown-it-py): what it renders, that hard-wrapped text keeps every word,
and that no input can put markup of its own on a page."""

from __future__ import annotations

import time
from html.parser import HTMLParser

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.catalog_factory import seed_entry
from web.markdown import ALLOWED_ATTRIBUTES, ALLOWED_TAGS, render_inline, render_markdown


class TagCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def tags_of(html: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    collector = TagCollector()
    collector.feed(html)
    collector.close()
    return collector.tags


def text_of(html: str) -> str:
    collector = TagCollector()
    collector.feed(html)
    collector.close()
    return " ".join("".join(collector.text).split())


def assert_safe(html: str) -> None:
    for tag, attributes in tags_of(html):
        assert tag in ALLOWED_TAGS, tag
        assert {name for name, _ in attributes} <= ALLOWED_ATTRIBUTES.get(tag, set()), (tag, attributes)
        if tag == "a":
            assert len(attributes) == 1 and (attributes[0][1] or "").startswith(("http://", "https://"))


def test_headings_paragraphs_lists_code_and_links_render() -> None:
    html = render_markdown(
        "## Lineage\n\nFirst line\nsame paragraph with `code <x>` and **bold** and *stress*.\n\n"
        "- one\n  continued\n- two [link](https://example.org/a?b=1&c=2)\n\n1. first\n2. second\n\n"
        "```\n<b>kept as text</b>\n```\n"
    )
    assert html == (
        "<h3>Lineage</h3>\n"
        "<p>First line\nsame paragraph with <code>code &lt;x&gt;</code> and <strong>bold</strong> and "
        "<em>stress</em>.</p>\n"
        '<ul>\n<li>one\ncontinued</li>\n<li>two <a href="https://example.org/a?b=1&amp;c=2">link</a></li>\n</ul>\n'
        "<ol>\n<li>first</li>\n<li>second</li>\n</ol>\n"
        "<pre><code>&lt;b&gt;kept as text&lt;/b&gt;\n</code></pre>"
    )


def test_a_hard_wrapped_line_starting_with_a_number_stays_in_its_paragraph() -> None:
    # CommonMark: only a list starting at 1 may interrupt a paragraph, so "2025) and v5" is text, not item "1."
    text = "Jie Xu leads the MedBench v4 (November\n2025) and v5 (June 2026) papers, and in\n3. quarter talks."
    html = render_markdown(text)
    assert "<ol" not in html and "<li>" not in html
    assert text_of(html) == " ".join(text.split())  # every word kept, the year too
    assert render_markdown("Steps:\n1. fetch\n2. run").count("<li>") == 2  # a list at 1 does interrupt


def test_everything_is_escaped_and_kept_as_text() -> None:
    text = 'A <b>bold</b> claim & "quotes" <!-- hidden --> <div onclick="x()">block</div>'
    html = render_markdown(text)
    assert "<b>" not in html and "<div" not in html and "<!--" not in html
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "&amp;" in html and "&lt;!-- hidden --&gt;" in html
    assert text_of(html) == text  # nothing dropped
    assert_safe(html)


def test_links_carry_only_their_address_and_images_are_no_requests() -> None:
    html = render_markdown('[paper](https://arxiv.org/abs/1 "Title") ![figure](https://img.example/x.png)')
    assert tags_of(html) == [
        ("p", []),
        ("a", [("href", "https://arxiv.org/abs/1")]),
        ("a", [("href", "https://img.example/x.png")]),
    ]
    assert "<img" not in html and "figure" in html


def test_headings_shift_below_the_pages_own_h1_and_h2() -> None:
    assert render_markdown("# Top") == "<h2>Top</h2>"
    assert render_markdown("Setext\n===") == "<h2>Setext</h2>"
    assert render_markdown("###### Deep") == "<h6>Deep</h6>"
    assert render_markdown("# Top", heading_offset=0) == "<h2>Top</h2>"  # never an h1


def test_raw_html_and_script_links_are_shown_as_text() -> None:
    html = render_markdown(
        "<script>alert(1)</script> <img src=x onerror=alert(2)> [x](javascript:alert(3)) [y](data:text/html,hi) "
        '[z](/relative) [q](https://ok.example/"onmouseover="alert)'
    )
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;" in html and "[x](javascript:alert(3))" in html
    assert_safe(html)
    assert [attributes for tag, attributes in tags_of(html) if tag == "a"] == [
        [("href", "https://ok.example/%22onmouseover=%22alert")]  # quotes percent-encoded, never an attribute
    ]


def test_underscores_in_words_are_not_emphasis() -> None:
    assert render_markdown("medbench_gen_0b4fff.py and snake_case") == "<p>medbench_gen_0b4fff.py and snake_case</p>"


def test_the_seed_body_renders_its_sections_and_code() -> None:
    html = render_markdown(seed_entry()["body"])
    assert html.count("<h3>") == 8 and "<h3>Lineage</h3>" in html
    assert "<code>./data/MedBench/&lt;subset&gt;</code>" in html
    assert "2025) and v5 (June 2026)" in html and "<ol" not in html
    assert_safe(html)


def test_inline_rendering_has_no_block_tags() -> None:
    assert render_inline("  the `MedBench` config  ") == "the <code>MedBench</code> config"


def test_long_adversarial_inputs_render_in_linear_time() -> None:
    # Quadratic behaviour shows as 16 times the time for 4 times the input; linear as 4. A bound on the ratio
    # (not on seconds) holds on a loaded machine too.
    for unit, size in (("**a", 6_000), ("[", 12_000), ("`", 25_000), ("*a ", 6_000), ("- ", 12_000)):
        timings = []
        for scale in (1, 4):
            runs = []
            for run in range(3):  # the fastest of three (a pause of a loaded machine is not the algorithm)
                text = unit * size * scale + ("](" if unit == "[" else "") + f"\n\nrun {run}"  # not the cached one
                started = time.perf_counter()
                assert_safe(render_markdown(text))
                runs.append(time.perf_counter() - started)
            timings.append(min(runs))
        assert timings[1] < 9 * timings[0] + 0.05, (unit, timings)


PIECES = [*"ab <>&\"'`*_[]()#-+.1:/\n\\=", "http://", "https://x.y/", "javascript:", "```", "](", "**"]
MARKDOWNISH = st.lists(st.sampled_from(PIECES), max_size=120).map("".join)


@settings(max_examples=400, deadline=None)
@given(MARKDOWNISH)
def test_any_text_renders_only_allowed_tags_and_web_links(text: str) -> None:
    assert_safe(render_markdown(text))
    assert_safe(str(render_inline(text)))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_unicode_text_renders_safely(text: str) -> None:
    assert_safe(render_markdown(text))


def test_a_link_with_an_empty_destination_keeps_its_text_and_is_no_link() -> None:
    # the parser does not validate an empty destination ("[a]()"), so it would render <a href="">
    assert str(render_markdown("[a]() and [c](https://x.y/z)")) == '<p>a and <a href="https://x.y/z">c</a></p>'
    assert str(render_inline("[]() [b](https://x.y/)")) == ' <a href="https://x.y/">b</a>'
