"""An approval killed with SIGKILL inside its transaction: the approval of a run whose model is only proposed
writes several rows in one transaction (the model proposal decided, the model registered, the run proposal
decided, its job queued, two audit entries). Killed after the transaction began and before it committed, none of
it is visible; approving again queues exactly one job.

The kill is known to land inside the transaction: the process holds SQLite's WAL write lock (a POSIX lock on byte
120 of the -shm file, read from /proc/locks) while the WAL is still empty, and a reference approval of the same
database commits exactly one transaction (counted from the WAL's commit frames), so that transaction is the
approval."""

from __future__ import annotations

import os
import shutil
import sqlite3
import struct
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from server.cli import main
from tests.killing import kill_inside
from tests.review_support import DEMO, HARI_CARD, query

BENCHTOWARD = [sys.executable, "-m", "server.cli"]
WAL_WRITE_LOCK_BYTE = 120  # WALINDEX_LOCK_OFFSET + WAL_WRITE_LOCK in SQLite's unix VFS
WAL_HEADER, FRAME_HEADER = 32, 24
ENDPOINT = "http://127.0.0.1:9/v1"  # never called: approving only queues the job

pytestmark = pytest.mark.skipif(not Path("/proc/locks").exists(), reason="needs Linux /proc/locks")


def commit_frames(wal: Path) -> int:
    """Transactions committed into a WAL file: frames whose header records the database size after a commit."""
    data = wal.read_bytes()
    page_size = struct.unpack(">I", data[8:12])[0]
    commits, offset = 0, WAL_HEADER
    while offset + FRAME_HEADER + page_size <= len(data):
        commits += struct.unpack(">I", data[offset + 4 : offset + 8])[0] != 0
        offset += FRAME_HEADER + page_size
    return commits


def holds_write_lock(pid: int, shm: Path) -> bool:
    try:
        inode = os.stat(shm).st_ino
        table = Path("/proc/locks").read_text()
    except FileNotFoundError:
        return False
    for line in table.splitlines():
        fields = line.split()
        if "->" in fields or len(fields) < 8:  # a waiter, not a holder
            continue
        kind, mode, owner, device, start = fields[1], fields[3], fields[4], fields[5], fields[6]
        held = (kind, mode, owner, start) == ("POSIX", "WRITE", str(pid), str(WAL_WRITE_LOCK_BYTE))
        if held and device.rsplit(":", 1)[-1] == str(inode):
            return True
    return False


def fresh_copy(source: Path, target: Path) -> sqlite3.Connection:
    """A copy of the database with an empty WAL, and a connection kept open on it so that the WAL outlives the
    process that writes it (SQLite deletes it when the last connection closes)."""
    origin, copy = sqlite3.connect(source), sqlite3.connect(target)
    try:
        origin.backup(copy)
    finally:
        origin.close()
        copy.close()
    keeper = sqlite3.connect(target)
    keeper.execute("PRAGMA journal_mode=WAL")
    keeper.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return keeper


def approve(db: Path, item: int) -> list[str]:
    return [*BENCHTOWARD, "review", "approve", str(item), "--endpoint", ENDPOINT, "--as", "alice", "--db", str(db)]


def test_an_approval_killed_inside_its_transaction_leaves_nothing_and_approving_again_queues_one_job(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = tmp_path / "base.db"
    assert main(["maintainer", "add", "alice", "--db", str(base)]) == 0
    capsys.readouterr()  # the token
    assert main(["papers", "read", str(HARI_CARD), "--propose", "--json", "--as", "alice", "--db", str(base)]) == 0
    item = next(i for i in orjson.loads(capsys.readouterr().out)["items"] if i["task"] == DEMO)
    model = query(base, f"SELECT model_slug FROM proposals WHERE id = {item['proposal_id']}")[0][0]
    assert query(base, f"SELECT status FROM proposals WHERE run_key IS NULL AND model_slug = '{model}'") == [
        ("pending",)
    ]  # the model is only proposed: the approval registers it in the same transaction

    reference = tmp_path / "reference.db"
    keeper = fresh_copy(base, reference)
    try:
        done = subprocess.run(approve(reference, item["proposal_id"]), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert commit_frames(Path(f"{reference}-wal")) == 1  # the command's only write is the approval
    finally:
        keeper.close()
    assert query(reference, "SELECT COUNT(*) FROM jobs") == [(1,)]

    landed, db = False, tmp_path / "victim.db"
    for _ in range(12):  # the transaction lasts milliseconds: try again if the process got through it first
        for leftover in tmp_path.glob("victim.db*"):
            leftover.unlink()
        keeper = fresh_copy(base, db)
        wal, shm = Path(f"{db}-wal"), Path(f"{db}-shm")
        try:
            victim = subprocess.Popen(
                approve(db, item["proposal_id"]), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            landed = kill_inside(
                victim, lambda pid=victim.pid, shm=shm, wal=wal: holds_write_lock(pid, shm) and wal.stat().st_size == 0
            )
        finally:
            keeper.close()
        if landed:
            break
    assert landed, "the kill never landed inside the approval's transaction"

    assert query(db, "PRAGMA integrity_check") == [("ok",)]
    statuses = "SELECT status FROM proposals ORDER BY id"
    assert query(db, statuses) == query(base, statuses)
    assert query(db, "SELECT COUNT(*) FROM jobs") == [(0,)]
    assert query(db, f"SELECT COUNT(*) FROM models WHERE slug = '{model}'") == [(0,)]
    assert query(db, "SELECT COUNT(*) FROM audit_log WHERE action = 'approve'") == [(0,)]

    again = subprocess.run(approve(db, item["proposal_id"]), capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert query(db, "SELECT COUNT(*) FROM jobs") == [(1,)]
    assert query(db, f"SELECT status FROM models WHERE slug = '{model}'") == query(
        reference, f"SELECT status FROM models WHERE slug = '{model}'"
    )
    twice = subprocess.run(approve(db, item["proposal_id"]), capture_output=True, text=True, timeout=120)
    assert twice.returncode != 0 and "approved already" in twice.stderr
    assert query(db, "SELECT COUNT(*) FROM jobs") == [(1,)]
    shutil.rmtree(tmp_path / "artifacts", ignore_errors=True)
