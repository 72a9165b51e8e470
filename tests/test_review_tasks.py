"""Task versions under review: an accepted change is recorded as a new version (building), moves to review, and
is published with its change note; the earlier version and its results stay visible; a maintainer's note is not
overwritten by the shipped file's note at the next start."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from evaluator.specs import SPEC_DIR
from server.settings import Settings
from store import Store
from store import tasks as task_store
from tests.conftest import running
from tests.review_support import bearer, make_maintainer, query
from tools.seed import sync_specs

pytestmark = pytest.mark.anyio
NOTE = "Bootstrap replicates raised from the first version's count after an author's request."


def next_version() -> dict[str, Any]:
    """The demo ClinicalQA task with one changed definition field: a new version, @1."""
    task_file = orjson.loads((SPEC_DIR / "tasks" / "clinicalqa-upstream-demo@0.json").read_bytes())
    task_file["spec"]["task"] = "clinicalqa-upstream-demo@1"
    task_file["spec"]["bootstrap"]["replicates"] = int(task_file["spec"]["bootstrap"]["replicates"]) + 1000
    return dict(task_file)


async def test_a_new_task_version_is_recorded_then_published_with_its_note_and_the_old_one_stays(
    settings: Settings,
) -> None:
    token = await make_maintainer(settings)
    async with running(settings) as http:
        http.headers.update(bearer(token))
        body = {"task_file": next_version(), "note": NOTE, "why": "accepted issue #12"}
        added = await http.post("/v1/review/tasks", json=body)
        assert added.status_code == 201, added.text
        assert added.json()["status"] == "building" and added.json()["change_note"] == NOTE
        assert (await http.post("/v1/review/tasks", json=body)).status_code == 409  # a version is added once
        latest = (await http.get("/v1/tasks/clinicalqa-upstream-demo")).json()
        assert latest["version"] == 0  # the latest *published* version

        moved = await http.post("/v1/review/tasks/clinicalqa-upstream-demo@1/status", json={"status": "in_review"})
        assert moved.status_code == 200 and moved.json()["status"] == "in_review"
        no_note = await http.post("/v1/review/tasks/clinicalqa-upstream-demo@1/status", json={"status": "published"})
        assert no_note.status_code == 400 and "change note" in no_note.json()["message"]
        published = await http.post(
            "/v1/review/tasks/clinicalqa-upstream-demo@1/status", json={"status": "published", "note": NOTE}
        )
        assert published.status_code == 200 and published.json()["status"] == "published"

        latest = (await http.get("/v1/tasks/clinicalqa-upstream-demo")).json()
        assert latest["version"] == 1 and latest["change_note"] == NOTE
        assert [(v["version"], v["status"]) for v in latest["versions"]] == [(0, "published"), (1, "published")]
        earlier = await http.get("/v1/tasks/clinicalqa-upstream-demo?version=0")
        assert earlier.status_code == 200 and earlier.json()["change_note"] == "First demo version."
        assert (await http.get("/tasks/clinicalqa-upstream-demo?version=0")).status_code == 200
        back = await http.post("/v1/review/tasks/clinicalqa-upstream-demo@1/status", json={"status": "building"})
        assert back.status_code == 409  # a published version stays published
        log = [(e["action"], e["target"]) for e in (await http.get("/v1/review/log")).json()["entries"]]
    assert log[:3] == [("task_status", "task:clinicalqa-upstream-demo@1")] * 2 + [
        ("task_add", "task:clinicalqa-upstream-demo@1")
    ]
    assert query(
        settings.db, "SELECT note_set_by FROM tasks WHERE slug = 'clinicalqa-upstream-demo' AND version = 1"
    ) == [("alice",)]


async def test_a_maintainers_change_note_survives_the_next_start(settings: Settings) -> None:
    store = await Store.open(settings.db)
    try:
        await sync_specs(store)
        async with store.transaction() as db:  # as a maintainer's publication writes it
            assert await task_store.write_task_status(
                db, "clinicalqa", 0, "published", "published", "Reviewed note.", "alice"
            )
        await sync_specs(store)  # the shipped file's note would overwrite it
        task = task_store.get_task(store, "clinicalqa", 0)
    finally:
        await store.close()
    assert task is not None and task.change_note == "Reviewed note."
