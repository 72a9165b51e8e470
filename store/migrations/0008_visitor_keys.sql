-- 0008: the daily visitor key. A visitor hash is keyed by a random key made for one Korea-time day (and made a
-- day ahead, so every worker process has it when the day begins); a key is deleted once its day has passed, so
-- no one, the operator included, can recompute an old day's hashes from addresses.

CREATE TABLE visitor_keys (
    day  TEXT PRIMARY KEY,
    key  BLOB NOT NULL
) STRICT, WITHOUT ROWID;
