"""Paper reading in a sandbox (issue 15, finding 3 of the security review): a 9 KB PDF whose pages all share one
content stream of 100,000 text operators costs pypdf minutes of CPU. It used to be parsed in the server's thread
pool (the review's 27.8 KB PDF took 111 s, and six at once made a predictions download take 53 s). Now it is read
in a child process with CPU, memory and wall-clock limits, fails with `bad_document`, and the server answers
other requests at its usual speed meanwhile. The PDF is built here as raw bytes."""

from __future__ import annotations

import asyncio
import time
import zlib

import httpx
import pytest

from evaluator.papers.errors import BadDocument
from evaluator.papers.sandbox import WALL_SECONDS, Sandbox
from server.settings import Settings
from tests.conftest import LiveServer
from tests.populate import MEDGEMMA
from tests.review_support import bearer, make_maintainer, query

pytestmark = pytest.mark.anyio


def shared_stream_pdf(pages: int = 50, operators: int = 100_000) -> bytes:
    """`pages` pages whose /Contents is one Flate stream of `operators` text-showing operators (~9 KB)."""
    stream = zlib.compress(b"BT /F1 12 Tf " + b"(x) Tj " * operators + b"ET", 9)
    kids = " ".join(f"{5 + n} 0 R" for n in range(pages))
    page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        *[page + b"/Contents 4 0 R >>"] * pages,
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


@pytest.mark.timeout(120)
async def test_an_expensive_pdf_fails_as_a_bad_document_within_the_sandbox_limits() -> None:
    """Finding 3: the reading stops at the CPU or wall-clock limit, whichever comes first, as `bad_document`."""
    document = shared_stream_pdf()
    assert len(document) < 10_000
    started = time.monotonic()
    with pytest.raises(BadDocument, match="within the limits"):
        await Sandbox().load(document, name="ops.pdf")
    assert time.monotonic() - started < WALL_SECONDS + 5


async def test_an_ordinary_document_reads_the_same_in_the_sandbox() -> None:
    """The sandbox changes where a document is read, not what is read."""
    document = await Sandbox().load(shared_stream_pdf(pages=2, operators=50), name="small.pdf")
    assert document.kind == "pdf" and document.text.count("x") == 100 and document.source == "small.pdf"
    with pytest.raises(BadDocument, match="does not start with %PDF-"):
        await Sandbox().load(b"<html>not a pdf</html>", name="paper.pdf")


@pytest.mark.timeout(180)
async def test_expensive_pdfs_being_read_never_slow_the_server(settings: Settings, run_ids: dict[str, str]) -> None:
    """Finding 3 on a live server: while two such PDFs are read, predictions downloads (served from the thread
    pool the reader used to take) and /v1 lookups answer in well under a second; both readings end as
    `bad_document` in about the CPU limit, and nothing is stored."""
    token = await make_maintainer(settings)
    run_id = run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"]
    with LiveServer(settings) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=WALL_SECONDS * 3) as http:
            uploads = [
                asyncio.create_task(
                    http.post(
                        "/v1/review/papers", files={"file": (f"ops{n}.pdf", shared_stream_pdf())}, headers=bearer(token)
                    )
                )
                for n in range(2)
            ]
            slowest = 0.0
            while not all(upload.done() for upload in uploads):
                for path in (
                    f"/artifacts/{run_id}/predictions.parquet",
                    f"/v1/lookup?model={MEDGEMMA.slug}&task=clinicalqa@0",
                ):
                    started = time.monotonic()
                    assert (await http.get(path)).status_code == 200
                    slowest = max(slowest, time.monotonic() - started)
                await asyncio.sleep(0.2)  # pacing the probes, not waiting for a result
            answers = [upload.result() for upload in uploads]
    assert [(a.status_code, a.json()["error"]) for a in answers] == [(400, "bad_document")] * 2
    assert slowest < 1.0, slowest
    assert query(settings.db, "SELECT count(*) FROM paper_readings") == [(0,)]
