-- 0014: a reuse event carries how many identical events it stands for. Every lookup that finds a result counts
-- (seed 002), but a server's buffer folds one visitor's lookups of one result on one day between two flushes
-- into one row with n = their number, so a busy agent is one write per flush instead of one per call.
-- Downloads stay one row per file, visitor and day (n = 1). Existing rows count once.
ALTER TABLE events ADD COLUMN n INTEGER NOT NULL DEFAULT 1 CHECK (n >= 1);
