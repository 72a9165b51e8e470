"""What each answer may be cached as, its ETag, and when it is compressed: the rules `Front` applies.

- Maintainer pages and routes, forms carrying a one-time token, health checks and every answer that is not a
  200: `Cache-Control: private, no-store` (or `no-store`), no ETag.
- Registry answers (/v1 JSON, CSV, llms.txt, the OpenAPI document): a strong ETag made of the code's
  identity and the store generation the answer was computed at or after, `public, max-age=30,
  must-revalidate`; any write that may change an answer moves the generation, so the tag changes with it.
- Pages: the same ETag, but `private, max-age=30, must-revalidate`: a browser may keep a page, a shared cache
  (nginx, a CDN) may not, since a visit counts only for a page the server itself sent to that visitor
  (server/served_pages.py); the API and the files are what a proxy shares.
- Predictions files: their sha256 as ETag, `immutable` for a year (a run's file never changes).
- Static files: Starlette's own ETag, `public, max-age=300, must-revalidate`.
- gzip when the client asks for it and the answer is text of over 1 KB, sent whole; the ETag of the gzip form
  ends in `-gz` (a strong tag names one byte sequence); `Vary: Accept-Encoding` on every compressible answer.
- CORS for GET under /v1 (not /v1/review): any origin may read, no credentials.
"""

from __future__ import annotations

import gzip
import hashlib
from enum import Enum
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE_FOLDERS = ("server", "web", "tools", "store", "evaluator")
REGISTRY_MAX_AGE = 30
STATIC_MAX_AGE = 300
IMMUTABLE_MAX_AGE = 31_536_000
GZIP_MIN_BYTES = 1024
GZIP_LEVEL = 6
COMPRESSIBLE = (b"application/json", b"text/", b"application/javascript", b"image/svg+xml")


class Kind(Enum):
    PRIVATE = b"private, no-store"  # maintainers' routes and pages, forms with a token
    UNCACHED = b"no-store"  # health checks, MCP, posts
    REGISTRY = f"public, max-age={REGISTRY_MAX_AGE}, must-revalidate".encode()
    PAGE = f"private, max-age={REGISTRY_MAX_AGE}, must-revalidate".encode()
    STATIC = f"public, max-age={STATIC_MAX_AGE}, must-revalidate".encode()
    IMMUTABLE = f"public, max-age={IMMUTABLE_MAX_AGE}, immutable".encode()


PRIVATE_PREFIXES = ("/review", "/v1/review", "/withdraw")
UNCACHED_PATHS = frozenset({"/healthz", "/mcp", "/v1/beacon"})
SHARED_PREFIXES = ("/v1/", "/llms.txt")  # registry answers a proxy may share; every other GET path is a page


def kind_of(method: str, path: str) -> Kind:
    """The caching of an answer to `method path` (before its status is known)."""
    if path.startswith(PRIVATE_PREFIXES):
        return Kind.PRIVATE
    if method not in ("GET", "HEAD") or path in UNCACHED_PATHS:
        return Kind.UNCACHED
    if path.startswith("/artifacts/"):
        return Kind.IMMUTABLE
    if path.startswith("/static/"):
        return Kind.STATIC
    return Kind.REGISTRY if path.startswith(SHARED_PREFIXES) else Kind.PAGE


def tagged(kind: Kind) -> bool:
    """Whether answers of this kind carry the registry's ETag (code identity and store generation)."""
    return kind is Kind.REGISTRY or kind is Kind.PAGE


def cors_path(path: str) -> bool:
    return (path == "/v1" or path.startswith("/v1/")) and not path.startswith("/v1/review")


CORS_HEADERS = [(b"access-control-allow-origin", b"*"), (b"access-control-expose-headers", b"etag, retry-after")]
PREFLIGHT_HEADERS = [
    *CORS_HEADERS,
    (b"access-control-allow-methods", b"GET, HEAD"),
    (b"access-control-allow-headers", b"if-none-match"),
    (b"access-control-max-age", b"86400"),
]


def code_identity(root: Path = ROOT) -> str:
    """A short hash of the code, templates and static files: part of every registry ETag, so a new version of
    BenchToward never answers 304 to a page the old one rendered. The same for every worker of one install."""
    digest = hashlib.sha256()
    for folder in CODE_FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    llms = root / "llms.txt"
    if llms.is_file():
        digest.update(llms.read_bytes())
    return digest.hexdigest()[:12]


def registry_etag(code: str, generation: int) -> bytes:
    return f'"{code}-{generation}"'.encode()


def file_etag(sha256: str) -> str:
    return f'"{sha256}"'


def bare_tag(tag: bytes) -> bytes:
    """A tag compared weakly (RFC 9110 §13.1.2) and without its gzip mark: W/"x", "x" and "x-gz" are one."""
    tag = tag.strip()
    if tag.startswith(b"W/"):
        tag = tag[2:]
    if tag.endswith(b'-gz"'):
        tag = tag[:-4] + b'"'
    return tag


def matches(if_none_match: bytes | None, etag: bytes) -> bool:
    """Whether an If-None-Match header names `etag` (or is `*`)."""
    if not if_none_match:
        return False
    if if_none_match.strip() == b"*":
        return True
    wanted = bare_tag(etag)
    return any(bare_tag(tag) == wanted for tag in if_none_match.split(b","))


def accepts_gzip(accept_encoding: bytes | None) -> bool:
    """Whether Accept-Encoding allows gzip (a `q=0` refuses it)."""
    if not accept_encoding:
        return False
    for part in accept_encoding.lower().split(b","):
        coding, _, params = part.strip().partition(b";")
        if coding.strip() in (b"gzip", b"*"):
            quality = params.strip().removeprefix(b"q=").strip() if params.strip().startswith(b"q=") else b"1"
            try:
                return float(quality) > 0
            except ValueError:
                return False
    return False


def compressible(content_type: bytes | None) -> bool:
    return content_type is not None and content_type.startswith(COMPRESSIBLE)


def gzipped(body: bytes) -> bytes:
    """Deterministic gzip (no timestamp): the same answer gives the same bytes, as a strong ETag requires."""
    return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)


def gzip_tag(etag: bytes) -> bytes:
    return etag[:-1] + b'-gz"' if etag.endswith(b'"') and not etag.endswith(b'-gz"') else etag
