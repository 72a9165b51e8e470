"""The pinned file listing of a generated data directory: one hash over every file's content.

listing_sha256 = sha256 of the lines `"{content_sha256}  {name}\\n"` (sha256sum's format) ordered by file
name, UTF-8, where content_sha256 is the sha256 of the file's bytes after gzip decompression for a `.gz`
file. Hashing the uncompressed content keeps the pin independent of the zlib build that compressed it.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Iterable
from pathlib import Path


def content_sha256(path: Path) -> str:
    """sha256 of a file's content, after gzip decompression for a `.gz` file."""
    data = path.read_bytes()
    return hashlib.sha256(gzip.decompress(data) if path.name.endswith(".gz") else data).hexdigest()


def listing_sha256(entries: Iterable[tuple[str, str]]) -> str:
    """sha256 of the `"{content_sha256}  {name}\\n"` lines of (name, content_sha256) entries, by name."""
    text = "".join(f"{digest}  {name}\n" for name, digest in sorted(entries))
    return hashlib.sha256(text.encode()).hexdigest()
