-- 0006: the maintainers' review. Maintainers (token hashes only), the append-only audit log, papers the
-- evaluator agent read and what it proposed, evaluation jobs with claims, and authors' withdrawal requests.

CREATE TABLE maintainers (
    id             INTEGER PRIMARY KEY,
    name           TEXT NOT NULL UNIQUE,
    key_id         TEXT NOT NULL UNIQUE,      -- the public part of the token: finds the row to compare with
    token_hash     TEXT NOT NULL,             -- HMAC-SHA256(key derived from the server secret, token), hex
    created_at     TEXT NOT NULL,
    sessions_after TEXT NOT NULL,             -- web sessions issued before this instant are refused (logout)
    revoked_at     TEXT
) STRICT;

-- Append-only: who did what to which target, when and why. Triggers refuse any UPDATE or DELETE.
CREATE TABLE audit_log (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    at           TEXT NOT NULL,
    actor        TEXT NOT NULL,
    action       TEXT NOT NULL,
    target       TEXT NOT NULL,
    why          TEXT NOT NULL DEFAULT '',
    details_json TEXT NOT NULL DEFAULT '{}'
) STRICT;

CREATE TRIGGER audit_log_is_append_only_update BEFORE UPDATE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;

CREATE TRIGGER audit_log_is_append_only_delete BEFORE DELETE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;

-- One row per reading of a paper or model card: the record the reader produced and what was proposed from it.
CREATE TABLE paper_readings (
    id           INTEGER PRIMARY KEY,
    sha256       TEXT NOT NULL,               -- of the document's bytes (several documents: of their hashes)
    source       TEXT NOT NULL,
    extractor    TEXT NOT NULL,
    record_json  TEXT NOT NULL,
    outcome_json TEXT NOT NULL,
    read_by      TEXT NOT NULL,
    read_at      TEXT NOT NULL
) STRICT;

CREATE INDEX paper_readings_by_sha256 ON paper_readings (sha256);

-- What the evaluator agent proposes: a model to register or a run (model x task) with its run key. `key` is
-- unique ('model:<slug>' or 'run:<run_key>'), so the same paper read twice proposes nothing new.
CREATE TABLE proposals (
    id           INTEGER PRIMARY KEY,
    key          TEXT NOT NULL UNIQUE,
    kind         TEXT NOT NULL CHECK (kind IN ('model', 'run')),
    status       TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
    reading_id   INTEGER NOT NULL REFERENCES paper_readings (id),
    model_slug   TEXT NOT NULL,
    task_ref     TEXT,
    run_key      TEXT,
    tier         TEXT,
    payload_json TEXT NOT NULL,               -- the model to register, or the run's key inputs
    reason       TEXT NOT NULL,
    excerpt      TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    decided_by   TEXT,
    decided_at   TEXT,
    decision_why TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX proposals_by_status ON proposals (status, id);

-- An approved run waiting for, or under, an evaluator worker. A worker claims a job by setting its owner; a
-- claim whose owner stopped heart-beating is taken over, and the run resumes from its cached items.
CREATE TABLE jobs (
    id           INTEGER PRIMARY KEY,
    proposal_id  INTEGER NOT NULL UNIQUE REFERENCES proposals (id),
    model_slug   TEXT NOT NULL,
    task_ref     TEXT NOT NULL,
    run_key      TEXT NOT NULL,
    tier         TEXT NOT NULL,
    endpoint     TEXT NOT NULL,
    api_key_env  TEXT,                        -- the name of a variable holding the key, never the key
    status       TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
    owner        TEXT,
    attempts     INTEGER NOT NULL DEFAULT 0,
    heartbeat_at TEXT,
    run_id       TEXT,
    message      TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    finished_at  TEXT
) STRICT;

CREATE INDEX jobs_by_status ON jobs (status, id);

-- Authors' requests to withdraw a result. No account and no address: only what the form asked for.
CREATE TABLE withdrawal_requests (
    id          INTEGER PRIMARY KEY,
    run_id      TEXT NOT NULL REFERENCES results (run_id),
    reason      TEXT NOT NULL,
    contact     TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL CHECK (status IN ('open', 'withdrawn', 'declined')),
    created_at  TEXT NOT NULL,
    decided_by  TEXT,
    decided_at  TEXT,
    decision_why TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX withdrawal_requests_by_status ON withdrawal_requests (status, id);

-- A change note a maintainer wrote when publishing a task version wins over the shipped file's note.
ALTER TABLE tasks ADD COLUMN note_set_by TEXT NOT NULL DEFAULT '';
