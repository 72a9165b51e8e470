"""Turn an input file or bytes into plain text: PDF (pypdf), HTML (the standard library's parser), CSV,
Markdown and plain text, chosen by file suffix or sniffed content. Size is checked before anything is read
in full.

HTML goes through `html.parser` rather than a new dependency: only the visible text and table rows are
needed, and the standard parser does that without adding a package to audit. Tables (HTML and CSV) come
out as Markdown tables so that one table reader serves every input kind.
"""

from __future__ import annotations

import csv
import io
import os
import warnings
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Literal

from evaluator.papers.errors import BadDocument, DocumentTooLarge

DocumentKind = Literal["pdf", "html", "csv", "markdown", "text"]

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
DEFAULT_MAX_PAGES = 300
# The most one compressed PDF stream may inflate to. pypdf's own bound (75 MB per stream) let a 200 KB upload
# hold ~160 MB while it was read; a paper's page content or font is a few hundred KB.
MAX_INFLATED_STREAM = 8 * 1024 * 1024
# The most columns or rows one HTML table cell may span, and the most cells spans may add to one page: real result
# tables span a few; a hostile page's spans would otherwise multiply its cells by thousands.
MAX_SPAN = 64
MAX_SPANNED_CELLS = 20_000
PYPDF_LIMITS = {
    name: MAX_INFLATED_STREAM
    for name in (
        "zlib_maximum_output_length",
        "lzw_maximum_output_length",
        "run_length_maximum_output_length",
        "brotli_maximum_output_length",
        "jbig2_maximum_output_length",
        "array_based_stream_maximum_output_length",
        "image_maximum_buffer_size",
    )
}
PDF_MAGIC = b"%PDF-"

_SUFFIX_KINDS: dict[str, DocumentKind] = {
    ".pdf": "pdf",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".csv": "csv",
    ".tsv": "csv",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
}


@dataclass(frozen=True)
class Document:
    """The text of one input, its kind and a short source label (the file's name)."""

    text: str
    kind: DocumentKind
    source: str


def load_document(
    source: str | os.PathLike[str] | bytes,
    *,
    name: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_pages: int = DEFAULT_MAX_PAGES,
) -> Document:
    """Read a file path (or raw bytes, with an optional file `name` for its suffix) into a `Document`."""
    if isinstance(source, bytes):
        if len(source) > max_bytes:
            raise DocumentTooLarge(f"{len(source)} bytes is over the limit of {max_bytes} bytes")
        data, label = source, name or "<bytes>"
    else:
        path = Path(source)
        data, label = _read_file(path, max_bytes), name or path.name
    kind = detect_kind(data, label)
    return Document(text=decode(data, kind, label, max_pages=max_pages), kind=kind, source=label)


def _read_file(path: Path, max_bytes: int) -> bytes:
    try:
        stat = path.stat()
        if not path.is_file():
            raise BadDocument(f"{path.name} is not a regular file")
        if stat.st_size > max_bytes:
            raise DocumentTooLarge(f"{path.name} is {stat.st_size} bytes, over the limit of {max_bytes} bytes")
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)  # the file may have grown since stat()
    except OSError as exc:
        raise BadDocument(f"cannot read {path.name}: {exc.strerror or exc}") from exc
    if len(data) > max_bytes:
        raise DocumentTooLarge(f"{path.name} is over the limit of {max_bytes} bytes")
    return data


def detect_kind(data: bytes, name: str) -> DocumentKind:
    """The kind of a document: `%PDF-` magic wins; a `.pdf` name without it is refused; else the suffix,
    then sniffing for HTML."""
    looks_like_pdf = data.lstrip(b"\x00\t\n\r \xef\xbb\xbf")[:5] == PDF_MAGIC
    suffix_kind = _SUFFIX_KINDS.get(Path(name).suffix.lower())
    if suffix_kind == "pdf" and not looks_like_pdf:
        raise BadDocument(f"{name} is named as a PDF but does not start with %PDF-")
    if looks_like_pdf:
        return "pdf"
    if suffix_kind is not None:
        return suffix_kind
    head = data[:2048].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")) or b"<body" in head or b"<head" in head:
        return "html"
    return "text"


def decode(data: bytes, kind: DocumentKind, name: str, *, max_pages: int = DEFAULT_MAX_PAGES) -> str:
    """The text of `data` read as `kind`."""
    if kind == "pdf":
        return pdf_text(data, name, max_pages=max_pages)
    text = _bytes_to_str(data, name)
    if kind == "html":
        return html_text(text)
    if kind == "csv":
        return csv_to_markdown(text, delimiter="\t" if name.lower().endswith(".tsv") else ",")
    return text


def _bytes_to_str(data: bytes, name: str) -> str:
    if b"\x00" in data[:8192]:
        raise BadDocument(f"{name} looks binary (NUL bytes), not text")
    for encoding in ("utf-8-sig", "cp949"):  # cp949: Korean documents not in UTF-8
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise BadDocument(f"{name} is neither UTF-8 nor CP949 text")


def pdf_text(data: bytes, name: str, *, max_pages: int = DEFAULT_MAX_PAGES) -> str:
    """The text of the first `max_pages` pages of a PDF; any failure of the parser is a `BadDocument`."""
    from pypdf import PdfReader, apply_configuration, get_configuration  # imported here: only PDFs pay for it

    limits = get_configuration().with_overwrites(**PYPDF_LIMITS)

    try:
        with warnings.catch_warnings(), apply_configuration(limits):  # pypdf's limits, for this read
            warnings.simplefilter("ignore")  # pypdf warns about harmless oddities of real-world files
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted and not reader.decrypt(""):
                raise BadDocument(f"{name} is an encrypted PDF")
            pages = [page.extract_text() or "" for page in reader.pages[:max_pages]]
    except BadDocument:
        raise
    except Exception as exc:  # pypdf raises many types on malformed input; all mean the same thing here
        raise BadDocument(f"{name} could not be read as a PDF: {type(exc).__name__}: {exc}") from exc
    return "\n\n".join(pages)


def csv_to_markdown(text: str, *, delimiter: str = ",") -> str:
    """A CSV text as one Markdown table (header row, separator, rows)."""
    try:
        rows = [row for row in csv.reader(io.StringIO(text), delimiter=delimiter) if any(c.strip() for c in row)]
    except csv.Error as exc:
        raise BadDocument(f"not a readable CSV table: {exc}") from exc
    if not rows:
        return ""
    lines = [_markdown_row(rows[0]), "|" + "---|" * len(rows[0])]
    lines.extend(_markdown_row(row) for row in rows[1:])
    return "\n".join(lines) + "\n"


def _markdown_row(cells: list[str]) -> str:
    return "|" + "|".join(" ".join(c.replace("|", "/").split()) for c in cells) + "|"


def _span(attrs: list[tuple[str, str | None]], name: str) -> int:
    """A cell's colspan or rowspan, 1 when absent or not a number, at most MAX_SPAN (a hostile page's "99999")."""
    value = (dict(attrs).get(name) or "").strip()
    return min(int(value), MAX_SPAN) if value.isdigit() and int(value) > 0 else 1


def html_text(markup: str) -> str:
    """The visible text of an HTML page; scripts and styles dropped, tables kept as Markdown tables."""
    parser = _TextParser()
    try:
        parser.feed(markup)
        parser.close()
    except (AssertionError, ValueError) as exc:  # older html.parser versions assert on some malformed markup
        raise BadDocument(f"not readable as HTML: {exc}") from exc
    return parser.text()


_SKIPPED = frozenset({"script", "style", "noscript", "template", "svg", "iframe", "object"})
_BLOCKS = frozenset(
    {
        "p",
        "div",
        "br",
        "section",
        "article",
        "header",
        "footer",
        "main",
        "ul",
        "ol",
        "pre",
        "blockquote",
        "table",
        "caption",
        "figcaption",
        "dl",
        "dt",
        "dd",
        "hr",
        "title",
        "nav",
        "aside",
        "figure",
    }
)
_HEADINGS = {"h1": "# ", "h2": "## ", "h3": "### ", "h4": "#### ", "h5": "##### ", "h6": "###### "}


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._out: list[str] = []
        self._skip_depth = 0
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._rows_in_table = 0
        self._href: str | None = None
        self._table_depth = 0
        self._in_caption = False
        self._span = (1, 1)  # the open cell's colspan and rowspan
        self._carried: list[dict[int, tuple[str, int]]] = []  # per open table: column -> (cell, rows it still spans)
        self._spanned = 0  # cells added by spans so far

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self._skip_depth += 1
        elif tag == "a":
            href = dict(attrs).get("href") or ""
            self._href = href if href.startswith(("http://", "https://")) else None
        elif tag == "table":
            self._table_depth += 1
            self._rows_in_table = 0
            self._carried.append({})
            self._out.append("\n\n")
        elif tag == "caption":
            self._in_caption = True
            self._out.append("\n")
        elif tag == "tr":
            self._end_row()
            self._row = []
        elif tag in ("td", "th"):
            self._end_cell()
            if self._row is None:
                self._row = []
            self._cell = []
            columns, rows = _span(attrs, "colspan"), _span(attrs, "rowspan")
            self._spanned += columns * rows - 1
            self._span = (columns, rows) if self._spanned <= MAX_SPANNED_CELLS else (1, 1)
        elif self._cell is not None and (tag in _HEADINGS or tag in _BLOCKS or tag == "li"):
            self._cell.append(" ")  # a line break inside a cell ("<td>a,<br> b</td>") is a space in it
        elif tag in _HEADINGS:
            self._out.append("\n\n" + _HEADINGS[tag])
        elif tag == "li":
            self._out.append("\n- ")
        elif tag in _BLOCKS:
            self._out.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif tag == "a":
            if self._href and not self._skip_depth:
                self.handle_data(f" ({self._href})")  # the link target is often the weights location
            self._href = None
        elif tag in ("td", "th"):
            self._end_cell()
        elif tag == "tr":
            self._end_row()
        elif tag == "table":
            self._end_row()
            self._table_depth = max(0, self._table_depth - 1)
            if self._carried:
                self._carried.pop()
            self._out.append("\n\n")
        elif tag == "caption":
            self._in_caption = False
            self._out.append("\n")
        elif (tag in _HEADINGS or tag in _BLOCKS or tag == "li") and self._cell is None:
            self._out.append("\n")

    def handle_data(self, data: str) -> None:
        if self._skip_depth:
            return
        if self._cell is not None:
            self._cell.append(data)
        elif self._row is None and (self._table_depth == 0 or self._in_caption):
            self._out.append(data)  # text between table rows is layout whitespace

    def _end_cell(self) -> None:
        if self._cell is not None and self._row is not None:
            self._fill_carried()
            cell = "".join(self._cell)  # cleaned once, by _markdown_row
            columns, rows = self._span
            for _ in range(columns):  # a cell spanning columns or rows stands in each of them, as in the rendering
                if rows > 1 and self._carried:
                    self._carried[-1][len(self._row)] = (cell, rows - 1)
                self._row.append(cell)
        self._cell = None
        self._span = (1, 1)

    def _fill_carried(self) -> None:
        """Put the cells of earlier rows that span down into this row at their columns."""
        carried = self._carried[-1] if self._carried else {}
        while self._row is not None and len(self._row) in carried:
            column = len(self._row)
            cell, rows = carried.pop(column)
            if rows > 1:
                carried[column] = (cell, rows - 1)
            self._row.append(cell)

    def _end_row(self) -> None:
        self._end_cell()
        if self._row is not None:
            self._fill_carried()
        if self._row:
            self._out.append("\n" + _markdown_row(self._row))
            if self._rows_in_table == 0:
                self._out.append("\n|" + "---|" * len(self._row))
            self._rows_in_table += 1
        self._row = None

    def text(self) -> str:
        self._end_row()
        lines = (" ".join(line.split()) for line in "".join(self._out).splitlines())
        collapsed: list[str] = []
        for line in lines:
            if line or (collapsed and collapsed[-1]):
                collapsed.append(line)
        return "\n".join(collapsed).strip() + "\n"
