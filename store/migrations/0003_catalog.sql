-- 0003: the benchmark catalog. Every imported revision of an entry is kept; the newest one is the entry.

-- One row per revision: the entry's JSON exactly as imported, in canonical form (sorted keys, no
-- whitespace, UTF-8), so an export gives back every field, unknown ones included.
CREATE TABLE catalog_revisions (
    seq          INTEGER PRIMARY KEY,  -- import order across the whole catalog
    id           TEXT NOT NULL,
    revision     INTEGER NOT NULL CHECK (revision >= 1),
    entry_json   TEXT NOT NULL,
    entry_sha256 TEXT NOT NULL,
    origin       TEXT NOT NULL CHECK (origin IN ('shipped', 'import')),
    imported_at  TEXT NOT NULL,
    UNIQUE (id, revision)
) STRICT;

-- The newest revision of each entry, with the columns the list sorts and filters on.
CREATE TABLE catalog_entries (
    id          TEXT PRIMARY KEY,
    revision    INTEGER NOT NULL,
    name        TEXT NOT NULL,
    disposition TEXT NOT NULL,
    FOREIGN KEY (id, revision) REFERENCES catalog_revisions (id, revision)
) STRICT;

-- Full-text search over the newest revision of each entry; rewritten in the same transaction as the entry.
CREATE VIRTUAL TABLE catalog_search USING fts5 (
    id UNINDEXED,
    name,
    aliases,
    tags,
    summary,
    tokenize = 'unicode61 remove_diacritics 2'
);
