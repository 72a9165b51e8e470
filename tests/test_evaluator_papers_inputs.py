"""Inputs of the paper reader: PDF, HTML, CSV, Markdown and plain text by suffix or sniffed content; documents
that are not what they claim and documents over the size limit are refused with a typed error."""

from __future__ import annotations

import asyncio
import tracemalloc
import zlib
from pathlib import Path

import pytest

from evaluator.papers import BadDocument, DocumentTooLarge, PaperError, load_document, read_paper

DATA = Path(__file__).parent / "data" / "papers"


def build_pdf(lines: list[str], deflated: bytes | None = None) -> bytes:
    """A minimal one-page PDF (Helvetica text, one line per entry) with a correct cross-reference table; or, given
    `deflated`, a page whose content stream is those bytes under /FlateDecode."""
    escaped = [line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for line in lines]
    content = "BT /F1 10 Tf 50 750 Td 14 TL " + " ".join(f"({line}) '" for line in escaped) + " ET"
    stream = content.encode("latin-1") if deflated is None else deflated
    flate = b"" if deflated is None else b" /Filter /FlateDecode"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> "
        b"/Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length " + str(len(stream)).encode() + flate + b" >>\nstream\n" + stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


PDF_LINES = [
    "MediPDF-3B: a written-for-tests paper (invented model and numbers)",
    "We release MediPDF-3B, an open Korean clinical language model, at",
    "https://huggingface.co/example-lab/MediPDF-3B under the MIT License.",
    "In a zero-shot setting MediPDF-3B reached an accuracy of 64.2% on",
    "ClinicalQA and 58.0% accuracy on the KorMedMCQA doctor subset.",
]


def test_a_pdf_built_from_bytes_is_read_with_pypdf_and_its_claims_extracted(tmp_path: Path) -> None:
    path = tmp_path / "paper.pdf"
    path.write_bytes(build_pdf(PDF_LINES))
    document = load_document(path)
    assert document.kind == "pdf"
    assert "MediPDF-3B" in document.text
    record = asyncio.run(read_paper(path))
    model = record.models[0]
    assert (model.name, model.weights, model.license) == (
        "MediPDF-3B",
        "https://huggingface.co/example-lab/MediPDF-3B",
        "MIT",
    )
    by_dataset = {claim.dataset: claim for claim in record.claims}
    clinicalqa = by_dataset["ClinicalQA"]  # the sentence runs across two PDF lines
    assert (clinicalqa.value, clinicalqa.setting, clinicalqa.mapping.task) == (
        0.642,
        "zero-shot",
        "clinicalqa@0",
    )
    assert by_dataset["KorMedMCQA"].value == 0.58
    assert by_dataset["KorMedMCQA"].mapping.task is None


def test_pdf_is_sniffed_from_its_magic_bytes_without_a_suffix() -> None:
    assert load_document(build_pdf(PDF_LINES)).kind == "pdf"


def test_a_file_named_pdf_that_is_not_a_pdf_is_a_bad_document(tmp_path: Path) -> None:
    path = tmp_path / "paper.pdf"
    path.write_text("<html>not a pdf</html>")
    with pytest.raises(BadDocument) as caught:
        asyncio.run(read_paper(path))
    assert caught.value.code == "bad_document"
    assert "does not start with %PDF-" in str(caught.value)


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.7\n" + b"\x00garbage" * 100,
        b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF",
        build_pdf(PDF_LINES)[:200],
    ],
    ids=["garbage", "dangling-reference", "truncated"],
)
def test_a_broken_pdf_is_a_bad_document_not_a_crash(data: bytes) -> None:
    with pytest.raises(PaperError) as caught:
        load_document(data, name="broken.pdf")
    assert caught.value.code == "bad_document"


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.pdf"
    with path.open("wb") as handle:  # a sparse 200 MB file: refused from its size, never read
        handle.truncate(200 * 1024 * 1024)
    with pytest.raises(DocumentTooLarge) as caught:
        load_document(path, max_bytes=1024 * 1024)
    assert caught.value.code == "document_too_large"


def deflated_spaces(megabytes: int) -> bytes:
    squeeze = zlib.compressobj(9)
    chunk = b" " * (1 << 20)
    return b"".join([*(squeeze.compress(chunk) for _ in range(megabytes)), squeeze.flush()])


def test_a_compression_bomb_is_read_without_inflating_it() -> None:
    """A PDF of about 200 KB whose page inflates to 200 MB: the reader answers (no text, or a bad document) and its
    peak of Python memory stays far below what the inflated page would take (pypdf stops at its own limit)."""
    bomb = build_pdf([], deflated=deflated_spaces(200))
    assert len(bomb) < 1_000_000
    tracemalloc.start()
    try:
        try:
            text = load_document(bomb, name="bomb.pdf").text
        except BadDocument:
            text = ""
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert text.strip() == ""
    assert peak < 64 * 1024 * 1024, f"peak {peak / 1e6:.0f} MB while reading a 200 MB bomb"


def test_bytes_over_the_size_limit_are_refused() -> None:
    with pytest.raises(DocumentTooLarge):
        asyncio.run(read_paper(b"a" * 2049, name="x.txt", max_bytes=2048))


@pytest.mark.parametrize("make", ["directory", "missing"])
def test_a_path_that_is_not_a_readable_file_is_a_bad_document(tmp_path: Path, make: str) -> None:
    path = tmp_path / "folder"
    if make == "directory":
        path.mkdir()
    with pytest.raises(BadDocument):
        load_document(path)


def test_binary_content_is_a_bad_document() -> None:
    with pytest.raises(BadDocument, match="binary"):
        load_document(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", name="figure.txt")


def test_korean_text_in_cp949_is_decoded() -> None:
    text = "서울대학교병원 모델은 ClinicalQA에서 accuracy of 70.1% 를 기록했다."
    document = load_document(text.encode("cp949"), name="note.txt")
    assert document.text == text


def test_html_is_sniffed_and_scripts_styles_and_noscript_are_dropped() -> None:
    page = (DATA / "written_leaderboard_page.html").read_bytes()
    document = load_document(page)  # no suffix: sniffed from <!DOCTYPE html>
    assert document.kind == "html"
    assert "99.9" not in document.text and "12%" not in document.text and "50%" not in document.text
    assert "|Model|ClinicalQA|KMLE 2024|" in document.text
    assert "(https://huggingface.co/example-org/KoDoc-2)" in document.text


def test_html_entities_and_unclosed_tags_do_not_break_the_reader() -> None:
    document = load_document(b"<p>AUROC &amp; AUPRC &lt; 1<div><table><tr><td>a<td>b", name="page.html")
    assert "AUROC & AUPRC < 1" in document.text
    assert "|a|b|" in document.text


def test_csv_becomes_a_markdown_table() -> None:
    document = load_document(b"model,value\nx,0.5\n", name="results.csv")
    assert document.kind == "csv"
    assert document.text.splitlines() == ["|model|value|", "|---|---|", "|x|0.5|"]


def test_several_documents_are_read_as_one_record() -> None:
    folder = DATA / "written_readme_split"
    record = asyncio.run(read_paper([folder / "README.md", folder / "results.csv"]))
    assert record.source == "README.md + results.csv"
    assert record.claims  # the README names the model, the CSV holds the numbers


def test_an_empty_list_of_documents_is_a_bad_document() -> None:
    with pytest.raises(BadDocument):
        asyncio.run(read_paper([]))
