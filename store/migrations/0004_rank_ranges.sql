-- 0004: paired-bootstrap rank ranges of a task version's leaderboard, stored with the set of results they cover.

CREATE TABLE rank_range_sets (
    task_slug    TEXT NOT NULL,
    task_version INTEGER NOT NULL,
    covers_json  TEXT NOT NULL,     -- the sorted run_ids of the published results considered
    replicates   INTEGER NOT NULL,
    note         TEXT NOT NULL,
    computed_at  TEXT NOT NULL,
    PRIMARY KEY (task_slug, task_version),
    FOREIGN KEY (task_slug, task_version) REFERENCES tasks (slug, version)
) STRICT;

CREATE TABLE rank_ranges (
    task_slug    TEXT NOT NULL,
    task_version INTEGER NOT NULL,
    run_id       TEXT NOT NULL REFERENCES results (run_id),
    best         INTEGER NOT NULL,
    worst        INTEGER NOT NULL,
    PRIMARY KEY (task_slug, task_version, run_id)
) STRICT, WITHOUT ROWID;
