-- 0001: the registry core. Datasets, task versions, models and their aliases, results, reuse events.

CREATE TABLE datasets (
    slug        TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    license     TEXT NOT NULL,
    license_url TEXT NOT NULL,
    citation    TEXT NOT NULL,
    doi         TEXT,
    source      TEXT NOT NULL,
    notes       TEXT NOT NULL DEFAULT '',
    demo        INTEGER NOT NULL DEFAULT 0 CHECK (demo IN (0, 1))
) STRICT;

CREATE TABLE tasks (
    slug               TEXT NOT NULL,
    version            INTEGER NOT NULL CHECK (version >= 0),
    kind               TEXT NOT NULL,
    dataset_slug       TEXT NOT NULL REFERENCES datasets (slug),
    title              TEXT NOT NULL,
    summary            TEXT NOT NULL,
    primary_metric     TEXT NOT NULL,
    higher_is_better   INTEGER NOT NULL CHECK (higher_is_better IN (0, 1)),
    preview            INTEGER NOT NULL CHECK (preview IN (0, 1)),
    demo               INTEGER NOT NULL CHECK (demo IN (0, 1)),
    status             TEXT NOT NULL CHECK (status IN ('building', 'in_review', 'published')),
    spec_json          TEXT NOT NULL,
    spec_hash          TEXT NOT NULL,
    change_note        TEXT NOT NULL DEFAULT '',
    contamination_note TEXT NOT NULL DEFAULT '',
    catalog_id         TEXT,
    created_at         TEXT NOT NULL,
    PRIMARY KEY (slug, version)
) STRICT;

CREATE TABLE models (
    slug              TEXT PRIMARY KEY,
    name              TEXT NOT NULL,
    type              TEXT NOT NULL,
    provider          TEXT NOT NULL,
    provider_model_id TEXT,
    version           TEXT NOT NULL DEFAULT '',
    status            TEXT NOT NULL DEFAULT 'published'
                      CHECK (status IN ('building', 'evaluating', 'in_review', 'published')),
    endpoint          TEXT,
    price_input_per_mtok  REAL,
    price_output_per_mtok REAL,
    created_at        TEXT NOT NULL
) STRICT;

-- Every name a caller may use for a model: its slug, its provider model id and any alias.
CREATE TABLE model_aliases (
    alias      TEXT NOT NULL,
    model_slug TEXT NOT NULL REFERENCES models (slug),
    PRIMARY KEY (alias, model_slug)
) STRICT, WITHOUT ROWID;

CREATE TABLE results (
    run_id             TEXT PRIMARY KEY,
    run_key            TEXT NOT NULL UNIQUE,
    key_json           TEXT NOT NULL,
    model_slug         TEXT NOT NULL REFERENCES models (slug),
    task_slug          TEXT NOT NULL,
    task_version       INTEGER NOT NULL,
    spec_hash          TEXT NOT NULL,
    tier               TEXT NOT NULL CHECK (tier IN ('standard', 'agent', 'baseline', 'official')),
    status             TEXT NOT NULL CHECK (status IN ('in_review', 'published', 'withdrawn')),
    partial            INTEGER NOT NULL CHECK (partial IN (0, 1)),
    primary_metric     TEXT NOT NULL,
    primary_value      REAL,
    metrics_json       TEXT NOT NULL,
    n                  INTEGER NOT NULL,
    n_units            INTEGER NOT NULL,
    parse_rate         REAL,
    cost_usd           REAL,
    eval_date          TEXT NOT NULL,
    config_json        TEXT NOT NULL,
    versions_json      TEXT NOT NULL,
    instance_set_hash  TEXT NOT NULL,
    predictions_path   TEXT NOT NULL,
    predictions_sha256 TEXT NOT NULL,
    predictions_rows   INTEGER NOT NULL,
    bibtex             TEXT NOT NULL,
    status_reason      TEXT NOT NULL DEFAULT '',
    created_at         TEXT NOT NULL,
    FOREIGN KEY (task_slug, task_version) REFERENCES tasks (slug, version)
) STRICT;

CREATE INDEX results_by_task ON results (task_slug, task_version, status);
CREATE INDEX results_by_model ON results (model_slug, task_slug, status);

-- Reuse events: one row per counted lookup or download. `visitor` is the daily visitor hash (never an address).
CREATE TABLE events (
    id       INTEGER PRIMARY KEY,
    kind     TEXT NOT NULL CHECK (kind IN ('lookup', 'download')),
    target   TEXT NOT NULL,
    run_id   TEXT,
    visitor  TEXT,
    day      TEXT NOT NULL,
    at       TEXT NOT NULL
) STRICT;

CREATE INDEX events_by_kind ON events (kind);
CREATE UNIQUE INDEX downloads_once_a_day ON events (target, visitor, day) WHERE kind = 'download' AND visitor IS NOT NULL;
