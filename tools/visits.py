"""Beacons: how a page tells the server that a real browser opened it.

Each page's script posts its own path to `/v1/beacon` once, as text (`/tasks/clinicalqa`) or JSON
(`{"path": "/tasks/clinicalqa"}`). Only those beacons count as visits, so automated fetches of a page (which
run no script) are never counted. The server checks that the path is one of its pages before counting.
"""

from __future__ import annotations

from urllib.parse import unquote

import orjson
from pydantic import Field, ValidationError

from tools.errors import BadRequest, PayloadTooLarge
from tools.schemas import Shape

MAX_BEACON_BYTES = 1024
# A site path: printable ASCII without spaces, quotes, angle brackets or backslashes (the script sends
# location.pathname, which the browser has already percent-encoded), then perhaps a query string or fragment of
# printable ASCII, which is dropped. The bounds keep any valid beacon under MAX_BEACON_BYTES.
PATH_PATTERN = r"^/[A-Za-z0-9._~!$&'()*+,;=:@%/-]{0,299}([?#][\x21-\x7e]{0,700})?$"
REFUSED_FETCH_SITES = ("cross-site", "same-site")


class Beacon(Shape):
    """The body of POST /v1/beacon: the path of the page that was opened."""

    path: str = Field(
        pattern=PATH_PATTERN,
        description="Path of the page that was opened, e.g. /tasks/clinicalqa (a query string is ignored).",
    )


def check_size(declared_length: str | None, received: int) -> None:
    """Refuse a beacon larger than MAX_BEACON_BYTES, by its Content-Length or by what has arrived so far."""
    declared = int(declared_length) if declared_length is not None and declared_length.isdigit() else 0
    if max(declared, received) > MAX_BEACON_BYTES:
        raise PayloadTooLarge(f"a beacon is at most {MAX_BEACON_BYTES} bytes")


def parse_beacon(body: bytes, content_type: str | None) -> Beacon:
    """A beacon from a text body (the path itself) or a JSON body ({"path": ...}); the query string and
    fragment are dropped, and percent-escapes decoded, so the path reads as the router sees it."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("a beacon body must be UTF-8 text or JSON") from None
    raw: object = text
    if (content_type or "").split(";")[0].strip().lower() == "application/json" or text.lstrip().startswith("{"):
        try:
            document = orjson.loads(text)
        except orjson.JSONDecodeError:
            raise BadRequest('a JSON beacon must be an object like {"path": "/tasks/clinicalqa"}') from None
        if not isinstance(document, dict) or set(document) != {"path"}:  # exactly what the schema says
            raise BadRequest('a JSON beacon is {"path": "/tasks/clinicalqa"} and nothing else')
        raw = document["path"]
    if not isinstance(raw, str) or not raw:
        raise BadRequest('a beacon names a page path: "/tasks/clinicalqa" or {"path": "/tasks/clinicalqa"}')
    try:
        beacon = Beacon(path=raw)
    except ValidationError:
        raise BadRequest(f"not a page path: {raw[:80]!r}") from None
    return Beacon.model_construct(path=unquote(beacon.path.split("#", 1)[0].split("?", 1)[0]))


def check_origin(fetch_site: str | None) -> None:
    """Browsers say where a request comes from; a beacon posted by another site's page is refused, so no
    other site can make its visitors' browsers inflate our counts."""
    if fetch_site is not None and fetch_site.lower() in REFUSED_FETCH_SITES:
        raise BadRequest("beacons are accepted only from BenchToward's own pages")
