"""HTTP caching, compression and CORS on the real app (its lifespan, a real store): strong ETags that change with
the store's generation, 304 on If-None-Match, Cache-Control per kind of answer, gzip when asked, CORS under /v1."""

from __future__ import annotations

import gzip
import hashlib
import sqlite3
import time

import httpx
import pytest

from server.settings import Settings
from tests.populate import MEDGEMMA
from tests.review_support import make_maintainer

pytestmark = pytest.mark.anyio

LOOKUP = "/v1/lookup?model=medgemma-27b&task=clinicalqa@0"


def is_strong(tag: str) -> bool:
    return tag.startswith('"') and tag.endswith('"') and not tag.startswith("W/")


async def test_a_registry_answer_has_a_strong_etag_and_a_matching_if_none_match_gets_304_without_a_body(
    data_client: httpx.AsyncClient,
) -> None:
    first = await data_client.get(LOOKUP, headers={"accept-encoding": "identity"})
    tag = first.headers["etag"]
    assert first.status_code == 200 and is_strong(tag)
    assert first.headers["cache-control"] == "public, max-age=30, must-revalidate"
    again = await data_client.get(LOOKUP, headers={"if-none-match": tag, "accept-encoding": "identity"})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
    assert again.headers["cache-control"] == first.headers["cache-control"]
    assert "content-type" not in again.headers
    for header in (f"W/{tag}", f'"other", {tag}', "*"):  # weak comparison, a list, any
        assert (await data_client.get(LOOKUP, headers={"if-none-match": header})).status_code == 304
    other = await data_client.get(LOOKUP, headers={"if-none-match": '"not-this-one"'})
    assert other.status_code == 200 and other.json() == first.json()


async def test_a_write_to_the_store_changes_every_registry_etag(
    data_client: httpx.AsyncClient, settings: Settings
) -> None:
    before = {path: (await data_client.get(path)).headers["etag"] for path in (LOOKUP, "/tasks", "/v1/stats")}
    connection = sqlite3.connect(settings.db)  # another process's write: a model gains an alias
    with connection:
        connection.execute(
            "INSERT INTO model_aliases (alias, model_slug) VALUES ('an-alias-added-elsewhere', ?)", (MEDGEMMA.slug,)
        )
    connection.close()
    for path, tag in before.items():  # another process's write shows within the read cache's recheck time
        deadline = time.monotonic() + 5
        answer = await data_client.get(path, headers={"if-none-match": tag})
        while answer.status_code == 304 and time.monotonic() < deadline:
            answer = await data_client.get(path, headers={"if-none-match": tag})
        assert answer.status_code == 200 and answer.headers["etag"] != tag, path


async def test_a_predictions_file_is_tagged_by_its_sha256_and_immutable(
    data_client: httpx.AsyncClient, run_ids: dict[str, str]
) -> None:
    run_id = run_ids[f"{MEDGEMMA.slug}@clinicalqa@0"]
    answer = await data_client.get(f"/artifacts/{run_id}/predictions.parquet")
    sha256 = hashlib.sha256(answer.content).hexdigest()
    assert answer.status_code == 200 and answer.headers["etag"] == f'"{sha256}"'
    assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
    again = await data_client.get(
        f"/artifacts/{run_id}/predictions.parquet", headers={"if-none-match": answer.headers["etag"]}
    )
    assert again.status_code == 304 and again.content == b""
    assert "content-encoding" not in answer.headers  # parquet is compressed already


async def test_static_files_revalidate_and_health_checks_are_never_stored(data_client: httpx.AsyncClient) -> None:
    page = await data_client.get("/")
    stylesheet = page.text.split('rel="stylesheet" href="', 1)[1].split('"', 1)[0]
    static = await data_client.get(stylesheet)
    assert static.status_code == 200 and static.headers["cache-control"] == "public, max-age=300, must-revalidate"
    assert (await data_client.get(stylesheet, headers={"if-none-match": static.headers["etag"]})).status_code == 304
    health = await data_client.get("/healthz")
    assert health.headers["cache-control"] == "no-store" and "etag" not in health.headers


async def test_maintainer_pages_forms_and_errors_are_never_cached(
    data_client: httpx.AsyncClient, settings: Settings
) -> None:
    token = await make_maintainer(settings)
    queue = await data_client.get("/v1/review/queue", headers={"authorization": f"Bearer {token}"})
    assert queue.status_code == 200 and queue.headers["cache-control"] == "private, no-store"
    assert "etag" not in queue.headers and "access-control-allow-origin" not in queue.headers
    for path in ("/review/login", "/review", "/withdraw"):
        answer = await data_client.get(path)
        assert answer.headers["cache-control"] == "private, no-store" and "etag" not in answer.headers, path
    missing = await data_client.get("/v1/model?model=no-such-model")  # lookup answers not_evaluated: no error
    assert missing.status_code == 404 and missing.headers["cache-control"] == "no-store"
    assert "etag" not in missing.headers


async def test_gzip_is_sent_to_clients_that_ask_for_large_text_answers_only(data_client: httpx.AsyncClient) -> None:
    plain = await data_client.get("/v1/openapi.json", headers={"accept-encoding": "identity"})
    assert len(plain.content) > 1024 and "content-encoding" not in plain.headers
    assert plain.headers["vary"] == "Accept-Encoding"
    raw = await data_client.get("/v1/openapi.json", headers={"accept-encoding": "gzip"}, extensions={})
    assert raw.headers["content-encoding"] == "gzip" and raw.content == plain.content  # httpx decodes it
    assert raw.headers["etag"] == plain.headers["etag"][:-1] + '-gz"'  # another byte sequence, another tag
    async with data_client.stream("GET", "/v1/openapi.json", headers={"accept-encoding": "gzip"}) as stream:
        packed = b"".join([chunk async for chunk in stream.aiter_raw()])
    assert int(stream.headers["content-length"]) == len(packed) < len(plain.content) // 3
    assert gzip.decompress(packed) == plain.content
    refused = await data_client.get("/v1/openapi.json", headers={"accept-encoding": "gzip;q=0, br"})
    assert "content-encoding" not in refused.headers
    small = await data_client.get("/healthz", headers={"accept-encoding": "gzip"})
    assert "content-encoding" not in small.headers  # under 1 KB: not worth it
    revalidated = await data_client.get(
        "/v1/openapi.json", headers={"accept-encoding": "gzip", "if-none-match": raw.headers["etag"]}
    )
    assert revalidated.status_code == 304


async def test_v1_answers_may_be_read_by_any_origin_without_credentials(data_client: httpx.AsyncClient) -> None:
    answer = await data_client.get(LOOKUP, headers={"origin": "https://notebook.example"})
    assert answer.headers["access-control-allow-origin"] == "*"
    assert "etag" in answer.headers["access-control-expose-headers"]
    assert "access-control-allow-credentials" not in answer.headers
    preflight = await data_client.options(
        LOOKUP,
        headers={
            "origin": "https://notebook.example",
            "access-control-request-method": "GET",
            "access-control-request-headers": "if-none-match",
        },
    )
    assert preflight.status_code == 204 and preflight.headers["access-control-allow-origin"] == "*"
    assert preflight.headers["access-control-allow-methods"] == "GET, HEAD"
    assert "if-none-match" in preflight.headers["access-control-allow-headers"]
    for path in ("/", "/v1/review/queue"):
        assert "access-control-allow-origin" not in (await data_client.get(path)).headers, path
    beacon = await data_client.options(
        "/v1/review/queue", headers={"origin": "https://x.example", "access-control-request-method": "GET"}
    )
    assert "access-control-allow-origin" not in beacon.headers


async def test_a_page_is_for_the_browsers_cache_only_so_its_visit_is_counted_by_the_server(
    data_client: httpx.AsyncClient,
) -> None:
    first = await data_client.get("/tasks/clinicalqa", headers={"accept-encoding": "identity"})
    tag = first.headers["etag"]
    assert first.status_code == 200 and is_strong(tag)
    assert first.headers["cache-control"] == "private, max-age=30, must-revalidate"  # never a proxy's copy
    again = await data_client.get("/tasks/clinicalqa", headers={"if-none-match": tag})
    assert again.status_code == 304 and again.content == b""
