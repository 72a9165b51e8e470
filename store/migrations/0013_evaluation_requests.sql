-- 0013: evaluation requests. Anyone may ask for a model to be run on a task version (POST /v1/requests, MCP
-- request_evaluation); a request stores only what its requester typed (no account, no address) and enters the
-- maintainers' review queue as a proposal. One request per model (matched case-insensitively) and task version.
-- Also: indexes for lookup's progress reads (a model's jobs, run claims and proposals on one task version) and
-- for matching model names and slugs without regard to case.

CREATE TABLE evaluation_requests (
    id           INTEGER PRIMARY KEY,
    model        TEXT NOT NULL,                -- as typed, surrounding spaces stripped (the display form)
    model_key    TEXT NOT NULL,                -- lower case: what deduplication and lookup match on
    model_slug   TEXT NOT NULL,                -- the slug proposed (or registered) for it
    task_slug    TEXT NOT NULL,
    task_version INTEGER NOT NULL,
    source_url   TEXT,
    note         TEXT NOT NULL DEFAULT '',
    source_read  TEXT NOT NULL DEFAULT '',     -- what reading source_url gave, or why it was not read
    proposal_id  INTEGER NOT NULL REFERENCES proposals (id),
    created_at   TEXT NOT NULL,
    UNIQUE (model_key, task_slug, task_version)
) STRICT;

CREATE INDEX evaluation_requests_by_slug ON evaluation_requests (model_slug COLLATE NOCASE, task_slug, task_version);
CREATE INDEX model_aliases_nocase ON model_aliases (alias COLLATE NOCASE);
-- Only running claims: lookup reads it on every answer short of a result, so it stays as small as the work in flight.
CREATE INDEX runs_running ON runs (model_slug COLLATE NOCASE, task_ref) WHERE status = 'running';
CREATE INDEX jobs_by_model_task ON jobs (model_slug COLLATE NOCASE, task_ref);
CREATE INDEX proposals_by_model_task ON proposals (model_slug COLLATE NOCASE, task_ref);
