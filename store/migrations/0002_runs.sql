-- 0002: evaluation runs. A claim per run key (the unique primary key: one computation per key), and the
-- per-item cache that lets a dead run resume without querying any completed item again.

CREATE TABLE runs (
    run_key      TEXT PRIMARY KEY,
    run_id       TEXT NOT NULL,
    key_json     TEXT NOT NULL,
    model_slug   TEXT NOT NULL,
    task_ref     TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('running', 'failed', 'done')),
    owner        TEXT NOT NULL,
    started_at   TEXT NOT NULL,
    heartbeat_at TEXT NOT NULL,
    finished_at  TEXT,
    items_total  INTEGER,
    items_done   INTEGER NOT NULL DEFAULT 0,
    error        TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE TABLE run_items (
    run_key     TEXT NOT NULL REFERENCES runs (run_key),
    instance_id TEXT NOT NULL,
    output_json TEXT NOT NULL,
    PRIMARY KEY (run_key, instance_id)
) STRICT, WITHOUT ROWID;
