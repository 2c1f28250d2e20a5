-- The dedup window (core/push-dedup.ts): a topic's key → the job its first push made, until expires_at. Kept
-- apart from jobs, so a job's retention does not end the window; rows past expires_at are dead and are
-- replaced by the next push with the key, or deleted by purge.
CREATE TABLE dedup_claims (
  topic TEXT NOT NULL,
  dedup_key TEXT NOT NULL,
  job_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (topic, dedup_key)
) WITHOUT ROWID;

CREATE INDEX dedup_claims_expiry ON dedup_claims (expires_at);
