-- 0012: external evidence. Results computed elsewhere (lm-eval, Inspect) and attached to a model as evidence:
-- never a result, never a leaderboard row, never a run key. One row per reported metric; the per-item outcomes,
-- when the samples were given, let a model page show agreement with BenchToward's own items.

CREATE TABLE evidence (
    id INTEGER PRIMARY KEY,
    model_slug TEXT NOT NULL REFERENCES models (slug),
    source TEXT NOT NULL,            -- the file's name as imported, or its URL
    file_sha256 TEXT NOT NULL,       -- the imported file, so a second import of it changes nothing
    harness TEXT NOT NULL,           -- 'lm-eval' | 'inspect'
    harness_version TEXT NOT NULL,
    external_model TEXT NOT NULL,    -- the model as the file names it
    task_name TEXT NOT NULL,
    task_version TEXT NOT NULL,
    dataset TEXT NOT NULL,
    filter TEXT NOT NULL,
    metric TEXT NOT NULL,
    value REAL NOT NULL,
    stderr REAL,
    ci_low REAL,
    ci_high REAL,
    n_samples INTEGER,
    n_shot INTEGER,
    evaluated_at TEXT NOT NULL,
    imported_at TEXT NOT NULL,
    UNIQUE (file_sha256, task_name, filter, metric)
) STRICT;

CREATE INDEX evidence_by_model ON evidence (model_slug);

CREATE TABLE evidence_items (
    evidence_id INTEGER NOT NULL REFERENCES evidence (id) ON DELETE CASCADE,
    item_id TEXT NOT NULL,
    correct INTEGER NOT NULL,
    PRIMARY KEY (evidence_id, item_id)
) STRICT;
