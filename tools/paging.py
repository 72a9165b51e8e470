"""Paging for every list answer: `total` rows match, `next` is an opaque cursor for the following page (null at the
end), and a caller passes it back as `cursor` with the same filters.

A cursor holds the position and a fingerprint of the filters it was made for, so a cursor reused with other
filters is refused instead of silently paging another list. The page size (`limit`) may change between pages.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, Field

from tools.errors import BadRequest

T = TypeVar("T")
CURSOR_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
CURSOR_SHAPE = re.compile(r"^(?P<offset>[0-9]{1,9})\.(?P<filters>[0-9a-f]{8})$")
CURSOR_HELP = "The last page's `next` (same filters)."
TOTAL_HELP = "Matches on all pages."
NEXT_HELP = "The next page's `cursor`; null at the end."


def cursor_field() -> Any:
    return Field(default=None, max_length=64, pattern=CURSOR_PATTERN, description=CURSOR_HELP)


def total_field() -> Any:
    return Field(description=TOTAL_HELP)


def next_field() -> Any:
    return Field(description=NEXT_HELP)


def fingerprint(query: BaseModel) -> str:
    """The filters of a query (all but its cursor and page size), hashed."""
    filters = query.model_dump(mode="json", exclude={"cursor", "limit"})
    return hashlib.sha256(orjson.dumps(filters, option=orjson.OPT_SORT_KEYS)).hexdigest()[:8]


def encode(offset: int, query: BaseModel) -> str:
    return base64.urlsafe_b64encode(f"{offset}.{fingerprint(query)}".encode()).decode().rstrip("=")


def offset_of(query: BaseModel) -> int:
    """Where the page of `query` starts: 0 without a cursor; bad_request for a cursor this server did not give
    for these filters."""
    cursor: str | None = getattr(query, "cursor", None)
    if cursor is None:
        return 0
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        text = ""
    match = CURSOR_SHAPE.fullmatch(text)
    if match is None:
        raise BadRequest("cursor: not a cursor this server gave; pass the `next` of the previous page unchanged")
    if match.group("filters") != fingerprint(query):
        raise BadRequest("cursor: it was given for other filters; repeat the filters of the first page with it")
    return int(match.group("offset"))


def next_cursor(query: BaseModel, offset: int, shown: int, total: int) -> str | None:
    """The cursor of the page after one that showed `shown` rows from `offset`, or None at the end."""
    after = offset + shown
    return encode(after, query) if shown and after < total else None


def page(rows: Sequence[T], query: BaseModel, limit: int) -> tuple[list[T], int, str | None]:
    """One page of an in-memory list: (rows, total, next)."""
    start = offset_of(query)
    chosen = list(rows[start : start + limit])
    return chosen, len(rows), next_cursor(query, start, len(chosen), len(rows))
