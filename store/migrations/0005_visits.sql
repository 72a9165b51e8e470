-- 0005: browser page visits, counted from beacons only (POST /v1/beacon, sent by a small script on each page).
-- One row per page, visitor and Korea-time day: a reload or a second tab the same day adds nothing.
-- `visitor` is the daily visitor hash (sha256 of secret, day and address), never an address; '' when the
-- server could not see an address at all. No time of day is kept: the day is all that counting needs.

CREATE TABLE visits (
    day      TEXT NOT NULL,
    path     TEXT NOT NULL,
    visitor  TEXT NOT NULL,
    PRIMARY KEY (day, path, visitor)
) STRICT, WITHOUT ROWID;
