-- Store-wide figures over time (store/job-series.ts): per tier (slot_ms), slot start, topic and field, a count
-- (transitions, lateness buckets) or a backlog sample. A tier's rows older than it keeps are deleted as new
-- slots are written (sqlite-job-series.ts), so the table stays the size of the time kept.
CREATE TABLE job_series (
  slot_ms INTEGER NOT NULL,
  slot_at INTEGER NOT NULL,
  topic TEXT NOT NULL,
  field TEXT NOT NULL,
  value INTEGER NOT NULL,
  PRIMARY KEY (slot_ms, slot_at, topic, field)
) WITHOUT ROWID;
