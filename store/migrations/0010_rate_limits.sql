-- 0010: rate-limit windows shared by every server process on this database (`serve --workers N` enforces one
-- limit, not N). One row per counted event (a failed login, a withdrawal request): which limit, the key it
-- counts against (a daily visitor hash or another pseudonym, never an address) and when (Unix seconds).
-- Rows older than their window are deleted as new ones are written, so the table holds at most one window.
-- Its writes change no cached answer: the table is listed in store/db.py's UNCACHED_TABLES.

CREATE TABLE rate_events (
    limiter  TEXT NOT NULL,
    key      TEXT NOT NULL,
    at       REAL NOT NULL
) STRICT;

CREATE INDEX rate_events_by_key ON rate_events (limiter, key, at);
CREATE INDEX rate_events_by_time ON rate_events (limiter, at);
