"""The maintainers' commands, run through `benchtoward`'s own entry point: a token printed once and stored only as
a keyed hash, the paper reader with --json, the review queue, task versions, and refusals as JSON errors."""

from __future__ import annotations

import getpass
from pathlib import Path

import orjson
import pytest

from server.cli import main
from tests.review_support import DEMO, HARI_CARD, query
from tests.test_review_tasks import NOTE, next_version


def run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(list(arguments))
    out, err = capsys.readouterr()
    return code, out, err


def test_maintainer_add_prints_the_token_once_and_stores_only_its_hash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "bt.db")
    code, out, err = run(capsys, "maintainer", "add", "bob", "--db", db)
    token = out.strip()
    assert code == 0 and token.startswith("btm_") and len(out.splitlines()) == 1 and "shown once" in err
    stored = b"".join(path.read_bytes() for path in tmp_path.glob("bt.db*"))
    assert token.encode() not in stored and token.split("_", 2)[2].encode() not in stored
    assert run(capsys, "maintainer", "list", "--db", db)[1].startswith("bob\t")
    assert run(capsys, "maintainer", "revoke", "bob", "--why", "left", "--db", db)[0] == 0
    code, _, err = run(capsys, "review", "reject", "1", "--why", "x", "--as", "bob", "--db", db)
    assert code == 2 and orjson.loads(err)["error"] == "bad_request" and "not an active maintainer" in err
    operator = f"cli:{getpass.getuser()}"
    assert query(Path(db), "SELECT actor, action FROM audit_log ORDER BY id") == [
        (operator, "maintainer_add"),
        (operator, "maintainer_revoke"),
    ]


def test_papers_read_prints_the_record_without_touching_a_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "papers", "read", str(HARI_CARD), "--json", "--db", str(tmp_path / "none.db"))
    record = orjson.loads(out)
    assert code == 0 and record["models"][0]["name"] == "snuh/hari-q3-8b" and record["extractor"] == "rules"
    assert not (tmp_path / "none.db").exists()
    code, out, _ = run(capsys, "papers", "read", str(HARI_CARD))
    assert code == 0 and "KorMedMCQA" in out and "not mapped" in out
    code, _, err = run(capsys, "papers", "read", "https://huggingface.co/snuh/hari-q3-8b", "--offline")
    assert code == 2 and orjson.loads(err)["error"] == "fetch_failed"
    code, _, err = run(capsys, "papers", "read", str(tmp_path / "missing.md"))
    assert code == 2 and orjson.loads(err)["error"] == "bad_request"


def test_the_review_queue_and_task_versions_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "bt.db")
    code, out, _ = run(capsys, "papers", "read", str(HARI_CARD), "--propose", "--db", db)
    assert code == 0 and "reading 1: 3 new review item(s)" in out
    code, out, _ = run(capsys, "papers", "read", str(HARI_CARD), "--propose", "--db", db)
    assert "reading 2: 0 new review item(s)" in out and "already proposed" in out
    queue = orjson.loads(run(capsys, "review", "list", "--json", "--db", db)[1])["items"]
    demo = next(item for item in queue if item["task"] == DEMO)
    code, out, _ = run(capsys, "review", "show", str(demo["id"]), "--db", db)
    assert code == 0 and "no published claim maps to" in out and "snuh/hari-q3-8b" in out
    code, _, err = run(capsys, "review", "approve", str(demo["id"]), "--db", db)
    assert code == 2 and "endpoint" in orjson.loads(err)["message"]
    assert run(capsys, "review", "reject", str(demo["id"]), "--why", "later", "--db", db)[0] == 0
    code, _, err = run(capsys, "review", "reject", str(demo["id"]), "--why", "again", "--db", db)
    assert code == 2 and orjson.loads(err)["error"] == "conflict"

    task_file = tmp_path / "next.json"
    task_file.write_bytes(orjson.dumps(next_version()))
    assert run(capsys, "tasks", "add", str(task_file), "--note", NOTE, "--db", db)[0] == 0
    assert run(capsys, "tasks", "status", "clinicalqa-upstream-demo@1", "in_review", "--db", db)[0] == 0
    code, out, _ = run(capsys, "tasks", "publish", "clinicalqa-upstream-demo@1", "--note", NOTE, "--db", db)
    assert code == 0 and "is published" in out
    actions = [row[0] for row in query(Path(db), "SELECT action FROM audit_log ORDER BY id")]
    assert actions == ["read_paper", "read_paper", "reject", "task_add", "task_status", "task_status"]
