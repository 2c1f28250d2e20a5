-- Outcomes reported by consumers (a finish's result, a fail's error: docs/job-api.md), kept as long as
-- the job's row; deleted with it by purge and by deleteEnded.
CREATE TABLE delayq_job_outcomes (
  job_id     TEXT COLLATE "C" PRIMARY KEY,
  outcome    TEXT   NOT NULL,                   -- JSON: {token, result, error, at} as the inner store keeps it
  updated_at BIGINT NOT NULL
);
