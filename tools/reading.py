"""Reading a paper or model card for review: the record (evaluator.papers), then the agent's proposals, stored
with the reading in one transaction. Documents come as bytes (an upload, a file) or from a URL fetched here,
with the size limit enforced before and while reading."""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import socket
from pathlib import Path, PurePosixPath
from urllib.parse import urljoin, urlsplit

import aiosqlite
import httpx
import orjson
from pydantic import Field

from evaluator import papers
from evaluator.papers import LLMConfig, PaperRecord
from evaluator.papers.sandbox import Sandbox
from evaluator.papers.text import DEFAULT_MAX_BYTES
from store import proposals as proposal_store
from store.db import Store
from store.proposals import Reading
from tools.audit import append
from tools.catalog import catalog_entry_for
from tools.errors import BadDocument, BadRequest, Conflict, ExtractorFailed, FetchFailed, NotFound, PayloadTooLarge
from tools.maintainers import Actor
from tools.proposals import Candidate, ProposedItem, candidates, outcome_json
from tools.registry import Registry
from tools.schemas import ROW_ID_MAX, Shape

MAX_DOCUMENT_BYTES = DEFAULT_MAX_BYTES
MAX_REDIRECTS = 3
FETCH_TIMEOUT_SECONDS = 20.0
SUFFIXES = {"pdf": ".pdf", "html": ".html", "markdown": ".md", "csv": ".csv", "plain": ".txt"}
KNOWN_SUFFIXES = {".pdf", ".html", ".htm", ".md", ".markdown", ".txt", ".csv", ".tsv", ".xhtml"}


class PaperReading(Shape):
    """One reading of a paper or model card: the structured record, and what the evaluator agent did with it."""

    reading_id: int
    source: str
    sha256: str = Field(description="sha256 of the document's bytes.")
    read_by: str
    read_at: str
    record: PaperRecord
    items: list[ProposedItem] = Field(description="Every model and run considered, with what was done and why.")
    proposed: int = Field(description="How many new review items this reading created (0 for a paper read before).")


class PaperUrl(Shape):
    url: str = Field(
        min_length=8,
        max_length=2000,
        pattern=r"^https?://[^\s/?#]+([/?#]\S*)?$",
        description="http(s) URL of the document.",
    )


async def read_record(
    content: bytes, name: str, llm: LLMConfig | None = None, sandbox: Sandbox | None = None
) -> PaperRecord:
    """The reader's record of one document; its errors become API errors with stable codes. The document is
    parsed in a limited child process (evaluator/papers/sandbox.py), never in the server's own."""
    try:
        document = await (sandbox or Sandbox()).load(content, name=name, max_bytes=MAX_DOCUMENT_BYTES)
        extractor = papers.LLMExtractor(llm) if llm is not None else papers.RuleExtractor()
        return await extractor.extract(document.text, source=document.source)
    except papers.DocumentTooLarge as error:
        raise PayloadTooLarge(error.message) from None
    except papers.BadDocument as error:
        raise BadDocument(error.message) from None
    except papers.PaperError as error:
        raise ExtractorFailed(f"{error.code}: {error.message}") from None


def link_catalog(store: Store, record: PaperRecord) -> PaperRecord:
    """A claim that maps to none of our tasks names the catalog entry of the benchmark it is about, when the catalog
    knows that benchmark by its id, name or an alias (tools.catalog.catalog_entry_for): a maintainer then sees which
    benchmark it is and, on that entry, why it is not run here (KMLE and KorMedMCQA are not ClinicalQA)."""
    claims = []
    for claim in record.claims:
        if claim.mapping.task is None and claim.dataset:
            entry = catalog_entry_for(store, claim.dataset)
            if entry is not None:
                claim = claim.model_copy(update={"mapping": claim.mapping.model_copy(update={"catalog_id": entry})})
        claims.append(claim)
    return record.model_copy(update={"claims": claims})


def reading_of(registry: Registry, reading: Reading, proposed: int) -> PaperReading:
    return PaperReading(
        reading_id=reading.id,
        source=reading.source,
        sha256=reading.sha256,
        read_by=reading.read_by,
        read_at=reading.read_at,
        record=PaperRecord.model_validate_json(reading.record_json),
        items=[ProposedItem.model_validate(item) for item in orjson.loads(reading.outcome_json)],
        proposed=proposed,
    )


async def read_and_propose(
    registry: Registry,
    actor: Actor,
    content: bytes,
    name: str,
    *,
    llm: LLMConfig | None = None,
    data: Path | None = None,
) -> PaperReading:
    """Read a document, propose the missing models and runs (after `lookup`), and store the reading and the new
    review items together. A document read before proposes nothing new: its items say `already_proposed`."""
    record = link_catalog(registry.store, await read_record(content, name, llm, registry.sandbox))
    found = await candidates(registry, record, data)
    sha256 = hashlib.sha256(content).hexdigest()
    async with registry.store.transaction() as db:
        reading_id, proposed = await store_reading(db, actor, "read_paper", sha256, record, found)
    reading = proposal_store.get_reading(registry.store, reading_id)
    assert reading is not None
    return reading_of(registry, reading, proposed)


async def store_reading(
    db: aiosqlite.Connection, actor: Actor, action: str, sha256: str, record: PaperRecord, found: list[Candidate]
) -> tuple[int, int]:
    """Store a reading, its new proposals and its audit entry inside the caller's transaction: (its id, how many
    review items it created). A proposal whose key is taken meanwhile is `already_proposed`."""
    reading_id = await proposal_store.insert_reading(
        db, sha256, record.source, record.extractor, record.model_dump_json(), actor.name
    )
    items: list[ProposedItem] = []
    for candidate in found:
        item = candidate.item
        if candidate.new is not None:
            new_id = await proposal_store.insert_proposal(db, reading_id, candidate.new)
            status = "pending" if new_id is not None else "proposed meanwhile"
            action_taken = "proposed" if new_id is not None else "already_proposed"
            item = item.model_copy(update={"proposal_id": new_id, "proposal_status": status, "action": action_taken})
        items.append(item)
    await proposal_store.set_outcome(db, reading_id, outcome_json(items))
    proposed = sum(1 for item in items if item.action == "proposed")
    details = {"source": record.source, "sha256": sha256, "proposed": proposed}
    await append(db, actor, action, f"reading:{reading_id}", "", details)
    return reading_id, proposed


def get_reading(registry: Registry, reading_id: int) -> PaperReading:
    reading = proposal_store.get_reading(registry.store, reading_id) if 1 <= reading_id <= ROW_ID_MAX else None
    if reading is None:
        raise NotFound(f"no paper reading {reading_id}")
    created = sum(1 for p in proposal_store.proposals_of_reading(registry.store, reading_id))
    return reading_of(registry, reading, created)


def recent_readings(registry: Registry, limit: int = 20) -> list[Reading]:
    return proposal_store.list_readings(registry.store, limit)


# Fetching a URL --------------------------------------------------------------------------------------------------


async def resolve_public(host: str, port: int, *, allow_private: bool = False) -> str:
    """Resolve `host` once and return the address to connect to; unless `allow_private`, every address it
    resolves to must be public (no loopback, private, link-local or reserved one), or the fetch is refused."""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        raise FetchFailed(f"cannot resolve {host[:200]!r}") from None
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]
    if not addresses:
        raise FetchFailed(f"cannot resolve {host[:200]!r}")
    if not allow_private and not all(address.is_global for address in addresses):
        raise BadRequest(f"{host[:200]} is not a public address; upload the file instead")
    return str(addresses[0])


def pinned(url: httpx.URL, address: str) -> tuple[httpx.URL, dict[str, str], dict[str, str]]:
    """The request for `url` sent to `address`: the URL with the address as its host, the original host in the
    Host header and as the TLS server name (SNI and certificate check), so nothing resolves the name again."""
    host_header = url.host if url.port is None else f"{url.host}:{url.port}"
    extensions = {"sni_hostname": url.host} if url.scheme == "https" else {}
    return url.copy_with(host=address), {"Host": host_header}, extensions


def document_name(url: str, content_type: str) -> str:
    """A file name whose suffix tells the reader the document's kind."""
    name = PurePosixPath(urlsplit(url).path).name or "document"
    if PurePosixPath(name).suffix.lower() in KNOWN_SUFFIXES:
        return name[:200]
    kind = content_type.split(";")[0].strip().lower()
    suffix = next((s for key, s in SUFFIXES.items() if key in kind), ".txt")
    return f"{name[:180]}{suffix}"


async def fetch_paper(url: str, *, offline: bool) -> tuple[bytes, str]:
    """The document at a paper's URL for the review API and pages. An offline server refuses with 409 conflict:
    the request is fine, the server's configuration refuses it."""
    if offline:
        raise Conflict("this server is offline (--offline): upload the file instead of a URL")
    return await fetch_document(url)


async def fetch_document(
    url: str,
    *,
    max_bytes: int = MAX_DOCUMENT_BYTES,
    allow_private: bool = False,
    timeout: float = FETCH_TIMEOUT_SECONDS,
) -> tuple[bytes, str]:
    """GET a document over http(s): refused past `max_bytes` (by Content-Length first, then while reading), and,
    unless `allow_private`, when the host resolves to a loopback, private or link-local address. Each hop (the
    URL, then every redirect) is resolved once, checked, and connected to at the address that was checked: a
    name that answers differently the second time (DNS rebinding) never gets a second lookup."""
    for _ in range(MAX_REDIRECTS + 1):
        parts = urlsplit(url)
        if parts.scheme not in {"http", "https"} or not parts.hostname:
            raise BadRequest("a paper URL must be http(s)://host/...")
        try:
            target = httpx.URL(url)
        except httpx.InvalidURL:
            raise BadRequest("a paper URL must be http(s)://host/...") from None
        address = await resolve_public(target.host, target.port or 443, allow_private=allow_private)
        pinned_url, host_header, extensions = pinned(target, address)
        headers = {"User-Agent": "BenchToward-paper-reader/1", **host_header}
        try:
            async with (
                httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False) as client,
                client.stream("GET", pinned_url, headers=headers, extensions=extensions) as response,
            ):
                if response.is_redirect and "location" in response.headers:
                    url = urljoin(url, response.headers["location"])
                    continue
                return await read_body(response, url, parts.hostname, max_bytes)
        except httpx.HTTPError as error:
            raise FetchFailed(f"could not fetch from {parts.hostname}: {type(error).__name__}") from None
    raise FetchFailed(f"more than {MAX_REDIRECTS} redirects")


async def read_body(response: httpx.Response, url: str, host: str, max_bytes: int) -> tuple[bytes, str]:
    if response.status_code >= 400:
        raise FetchFailed(f"{host} answered HTTP {response.status_code}")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise PayloadTooLarge(f"the document is {declared} bytes, over the limit of {max_bytes}")
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > max_bytes:
            raise PayloadTooLarge(f"the document is over the limit of {max_bytes} bytes")
    return bytes(body), document_name(url, response.headers.get("content-type", ""))
