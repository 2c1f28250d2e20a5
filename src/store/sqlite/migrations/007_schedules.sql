-- Schedules (docs/schedules.md): one row each; the record is JSON, its revision and cursor are also columns
-- so a runner's compare-and-set move is one UPDATE … WHERE.
CREATE TABLE IF NOT EXISTS schedules (
  name       TEXT PRIMARY KEY,
  revision   INTEGER NOT NULL,
  cursor_at  INTEGER NOT NULL,
  record     TEXT    NOT NULL
);
