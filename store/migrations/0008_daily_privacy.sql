-- 0008: the daily visitor key, and the pages served each day. A visitor hash is keyed by a random key made for
-- one Korea-time day (and made a day ahead, so every worker process has it when the day begins); a key is deleted
-- once its day has passed, so no one, the operator included, can recompute an old day's hashes from addresses.

CREATE TABLE visitor_keys (
    day  TEXT PRIMARY KEY,
    key  BLOB NOT NULL
) STRICT, WITHOUT ROWID;

-- The pages served to each visitor today, so that a beacon counts as a visit only for a page the server actually
-- sent that visitor that day (a script posting beacons without fetching pages counts nothing). Deleted with the
-- day's key: the hashes here are the same daily hashes as in `visits`.
CREATE TABLE served_pages (
    day      TEXT NOT NULL,
    path     TEXT NOT NULL,
    visitor  TEXT NOT NULL,
    PRIMARY KEY (day, path, visitor)
) STRICT, WITHOUT ROWID;
