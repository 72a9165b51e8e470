"""Canonical JSON and the hashes built on it (spec_hash, run_key, file digests)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson


def canonical_json(value: Any) -> bytes:
    """Sorted keys, no whitespace, UTF-8: the one serialisation every hash in BenchToward is taken over."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical_hash(value: Any) -> str:
    """sha256 of the canonical JSON of `value`, as 64 hex characters."""
    return sha256_hex(canonical_json(value))


def file_sha256(path: Path, chunk_size: int = 1 << 20) -> str:
    """sha256 of a file's bytes, read in chunks so large files stay out of memory."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()
